/**
 * Longhaul's layer boundaries (docs/ARCHITECTURE.md "Layers"), written down as rules so they are
 * checked, not remembered; checked by dependency-cruiser in `npm test` (stage "boundaries": `npm run boundaries`,
 * scripts/check-boundaries.ts, which also refuses a cycle of folders: scripts/lib/folder-cycles.ts).
 * dependency-cruiser 17.4.x: the last line that runs on Node 20 (docs/STACK.md pitfall 13).
 */

/**
 * The features with a front door (server/features/<id>/index.ts) and the modules behind each, by
 * folder under server/ (file names without `.ts`): one rule `front-door-<id>` per feature refuses an
 * import of those modules from above the doors, and the CLI may import none of its db or tools ones.
 * `label` (with `is` for a singular name) starts the rule's message.
 */
const FEATURES = [
  {
    id: "escalations",
    label: "Escalations",
    modules: {
      domain: ["decide-escalation", "apply-escalation-decision", "escalation-wait"],
      db: ["escalation-repository", "escalation-queries", "escalation-notify", "apply-decision-ports", "approval-repository"],
    },
  },
  {
    id: "evals",
    label: "Evals",
    modules: {
      domain: ["eval-suite", "parse-eval-suite", "eval-checks", "cel-check", "eval-report", "advance-eval-run"],
      db: ["eval-repository", "eval-ports", "eval-judge"],
    },
  },
  {
    id: "mcp",
    label: "MCP",
    singular: true,
    modules: {
      domain: ["mcp-tool-snapshot"],
      db: ["mcp-server-repository"],
      "tools/mcp": ["runtime", "discover-tools", "mcp-tools", "health-hooks", "stdio-transport", "json-line-reader"],
    },
  },
  { id: "costs", label: "Costs", modules: { domain: ["cost", "cost-causes", "cost-rollup"], db: ["cost-repository", "cost-queries"] } },
  { id: "templates", label: "Templates", modules: { domain: ["launch-template", "budget-from-history"], db: ["template-repository"] } },
  {
    id: "profiles",
    label: "Profiles",
    modules: {
      domain: ["profile-spec", "profile-references", "profile-smoke", "field-diff"],
      db: ["profile-repository", "profile-queries", "task-profile", "reference-checks", "code-managed"],
    },
  },
];

/** The rule that keeps `feature`'s modules behind its front door. */
function frontDoorRule(feature) {
  return {
    name: `front-door-${feature.id}`,
    severity: "error",
    comment: `${feature.label} ${feature.singular ? "is" : "are"} reached through their front door: import server/features/${feature.id}/index.ts, not its modules. Below the doors (server/domain, server/db, server/tools, server/llm, server/notify, server/auth, server/executor, lib, the top-level server files, server/agent/ports.ts — the port types the database implements) and in the tests, modules import each other directly: a door imported from there would close a cycle. The CLI (an HTTP client) imports a feature's pure server/domain modules directly (rule front-door-cli-no-feature-storage).`,
    from: {
      pathNot: [
        "^server/(domain|db|tools|llm|notify|auth|executor)/",
        "^server/[^/]+\\.ts$",
        "^lib/",
        "^server/features/",
        "^tests/",
        "^server/agent/ports\\.ts$",
        "^scripts/(cli(\\.ts$|/)|lib/cli-)",
      ],
    },
    to: { path: Object.entries(feature.modules).map(([folder, names]) => `^server/${folder}/(${names.join("|")})\\.ts$`) },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles: a cycle makes load order matter and layers meaningless.",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-no-framework",
      severity: "error",
      comment:
        "server/domain is pure logic over ports: no next, Prisma, inngest, openai or pg, and no adapter code (db, api, inngest, executor, tools, agent) — it talks to ports.",
      from: { path: "^server/domain/" },
      to: {
        dependencyTypesNot: ["type-only"],
        path: ["^node_modules/(next|@prisma|inngest|openai|pg|@trpc)/", "^server/(db|api|inngest|executor|tools|agent)/", "^(app|components)/"],
      },
    },
    {
      name: "domain-no-framework-types",
      severity: "error",
      comment: "Not even types from the frameworks: the domain's shapes are its own.",
      from: { path: "^server/domain/" },
      to: { path: "^node_modules/(next|@prisma|inngest|openai)/" },
    },
    {
      name: "routers-no-prisma",
      severity: "error",
      comment: "tRPC routers are thin: they call a domain function or a db query/repository function, never the Prisma client or its generated models.",
      from: { path: "^server/api/routers/" },
      to: { dependencyTypesNot: ["type-only"], path: ["^node_modules/@prisma/", "^server/db/(client|prisma)\\.ts$", "^server/db/generated/"] },
    },
    {
      name: "ui-server-types-only",
      severity: "error",
      comment:
        "Components and pages import server/ only as types (they run in the browser); shared values come from lib/contracts/. Server components call procedures through server/api/server-caller.ts.",
      from: { path: "^(components|app)/", pathNot: "^app/api/" },
      to: { dependencyTypesNot: ["type-only"], path: "^server/", pathNot: "^server/api/server-caller\\.ts$" },
    },
    {
      name: "route-handlers-no-prisma",
      severity: "error",
      comment: "Route handlers (app/api) go through server/db functions, not Prisma itself nor the shared client.",
      from: { path: "^app/api/" },
      to: { dependencyTypesNot: ["type-only"], path: ["^node_modules/@prisma/", "^server/db/generated/", "^server/db/(client|prisma)\\.ts$"] },
    },
    {
      name: "executor-isolated",
      severity: "error",
      comment: "The embedded executor is its own process that speaks Inngest's protocol: nothing from the app, the UI or Longhaul's product code.",
      from: { path: "^server/executor/" },
      to: { path: ["^(app|components)/", "^server/(domain|inngest|tools|llm|api|agent|notify)/"] },
    },
    {
      name: "agent-no-engine",
      severity: "error",
      comment:
        "The agent layer (server/agent) knows no durable-execution engine: its step bodies throw StepRetryError (server/errors.ts) and server/inngest maps it to Inngest's errors (server/inngest/errors.ts withInngestRetries).",
      from: { path: "^server/agent/" },
      to: { path: ["^node_modules/inngest/", "^server/(inngest|executor)/"] },
    },
    {
      name: "db-no-tools",
      severity: "error",
      comment:
        "server/db stores and reads; it imports no tool code (not even types). What a composition root in db needs of the tools is passed in by its caller (server/tools/launch-tools.ts launchTools, toolDefinitions for the cancel checkpoint).",
      from: { path: "^server/db/" },
      to: { path: "^server/tools/" },
    },
    {
      name: "db-no-use-cases",
      severity: "error",
      comment:
        "server/db stores and reads: it calls no domain use case (the use cases call the db through their ports; types of the ports are fine). Applying a decision is the domain's applyDecision, called by its four callers over prismaDecisionApplyPorts. Known exceptions, composition roots still in db: eval-ports.ts (launches and cancels eval cases) and template-repository.ts (launches from a template).",
      from: { path: "^server/db/", pathNot: ["^server/db/(eval-ports|template-repository)\\.ts$"] },
      to: {
        dependencyTypesNot: ["type-only"],
        path: "^server/domain/(apply-escalation-decision|decide-escalation|resume-task|launch-task|launch-template|cancel-task|fork-task|batch-tasks|advance-eval-run)\\.ts$",
      },
    },
    {
      name: "agent-no-db",
      severity: "error",
      comment:
        "No agent ↔ db circle of folders: the agent's step bodies talk to ports (server/agent/ports.ts); the composition root that builds them over Prisma, the provider and the tools is server/inngest/agent-ports.ts. db may import the agent's port types (it implements them), never the reverse.",
      from: { path: "^server/agent/" },
      to: { path: "^server/db/" },
    },
    {
      name: "db-no-adapters-above",
      severity: "error",
      comment:
        "No folder circles through db: it imports neither the Inngest layer, the API layer nor the agent's code (only the agent's port types, server/agent/ports.ts).",
      from: { path: "^server/db/" },
      to: { path: ["^server/(inngest|api|executor)/", "^server/agent/(?!ports\\.ts$)"] },
    },
    {
      name: "functions-no-db",
      severity: "error",
      comment:
        "Inngest functions (server/inngest/functions) are wiring: their steps reach the database only through ports, built per step by the composition roots server/inngest/agent-ports.ts (runAgentPorts) and server/inngest/function-ports.ts — never the Prisma client, its generated models or any server/db module, not even for types.",
      from: { path: "^server/inngest/functions/" },
      to: { path: ["^node_modules/@prisma/", "^server/db/"] },
    },
    {
      name: "env-source-only-env",
      severity: "error",
      comment:
        "The raw process environment (server/env-source.ts) is read by server/env.ts only: env() parses it once; namedVariables() answers the variables an admin's data names (a profile's apiKeyEnv, an MCP server's fromEnv).",
      from: { pathNot: ["^server/env\\.ts$"] },
      to: { path: "^server/env-source\\.ts$" },
    },
    {
      name: "contracts-client-safe",
      severity: "error",
      comment: "lib/contracts is imported by the browser and the server: it imports nothing but itself and zod (its schemas are shared).",
      from: { path: "^lib/" },
      to: { pathNot: ["^lib/", "^node_modules/zod/"] },
    },
    ...FEATURES.map(frontDoorRule),
    {
      name: "front-door-cli-no-feature-storage",
      severity: "error",
      comment:
        "The CLI is a client of the API, as the browser is: it may share a feature's pure server/domain values (schemas, constants) by importing them directly, and types from anywhere, but a value import of a feature's server/db or server/tools module would load the feature's database side into every CLI start.",
      from: { path: ["^scripts/(cli(\\.ts$|/)|lib/cli-)"] },
      to: {
        dependencyTypesNot: ["type-only"],
        path: FEATURES.flatMap((f) =>
          Object.entries(f.modules)
            .filter(([folder]) => folder !== "domain")
            .flatMap(([folder, names]) => names.map((n) => `^server/${folder}/${n}\\.ts$`)),
        ),
      },
    },
  ],
  options: {
    // Reached but not cruised (so a rule can still name them as a target).
    doNotFollow: { path: ["node_modules", "^server/db/generated/"] },
    exclude: { path: ["^\\.next/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

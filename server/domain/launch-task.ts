import { z } from "zod";
import {
  EXECUTOR_MAX_STEP_OUTPUT_BYTES,
  jsonBytes,
  MAX_FACT_KEY_LENGTH,
  MAX_GOAL_CHARS,
  MAX_LAUNCH_FACTS,
  MAX_LAUNCH_FACTS_BYTES,
  MAX_COST_BUDGET_USD,
  MAX_DEMO_PACKAGES,
  MAX_STEP_BUDGET,
  MAX_TOKEN_BUDGET,
  MIN_COST_BUDGET_USD,
} from "../../lib/contracts/limits.ts";
import { AppError } from "../errors.ts";
import { findUnstorableString } from "./unstorable.ts";
import { textField } from "./input-fields.ts";
import {
  DEMO_DEFAULT_EMAIL,
  DEMO_STEPS_BASE,
  DEMO_STEPS_PER_PACKAGE,
  demoStepBudget,
  MCP_AUDIT_PROFILE,
  mcpAuditGoal,
  mcpAuditStepBudget,
} from "../../lib/contracts/demo.ts";
import { checkDestinations, describeBreach, mergeEgressPolicies, type EgressPolicy, type ProfileEgress } from "./egress-policy.ts";
import { factValueProblem } from "./decide-escalation.ts";
import type { BudgetBasis } from "./budget-from-history.ts";
import { parseToolSnapshot, type McpToolSnapshot } from "./mcp-tool-snapshot.ts";
import { smokeLaunchPlan, type SmokeSpec } from "./profile-smoke.ts";

/**
 * The launch's facts (the working set its first run starts from): at most {@link MAX_LAUNCH_FACTS}
 * facts, keys 1–{@link MAX_FACT_KEY_LENGTH} characters, each value plain JSON of at most 16 KiB (as
 * `record_fact` takes them), and all of them together at most {@link MAX_LAUNCH_FACTS_BYTES} of JSON —
 * the working set travels in the executor's step outputs (limit {@link EXECUTOR_MAX_STEP_OUTPUT_BYTES}),
 * so a launch the executor could not run is refused here, naming the field and the limit.
 */
export const launchFactsSchema = z.record(z.string(), z.unknown()).superRefine((facts, ctx) => {
  const keys = Object.keys(facts);
  if (keys.length > MAX_LAUNCH_FACTS) ctx.addIssue({ code: "custom", message: `facts: at most ${MAX_LAUNCH_FACTS} facts per launch (got ${keys.length})` });
  for (const key of keys) {
    if (key.length === 0) ctx.addIssue({ code: "custom", message: "facts: a fact key must not be empty" });
    if (key.length > MAX_FACT_KEY_LENGTH)
      ctx.addIssue({ code: "custom", message: `facts: a fact key has at most ${MAX_FACT_KEY_LENGTH} characters (got ${key.length})` });
    const problem = factValueProblem(facts[key]);
    if (problem) ctx.addIssue({ code: "custom", message: `facts: "${key.slice(0, 80)}": ${problem}` });
  }
  const bytes = jsonBytes(facts);
  if (bytes > MAX_LAUNCH_FACTS_BYTES) {
    ctx.addIssue({
      code: "custom",
      message: `facts: at most ${MAX_LAUNCH_FACTS_BYTES} bytes of JSON in all (got ${bytes}): the working set travels in the executor's step outputs, limited to ${EXECUTOR_MAX_STEP_OUTPUT_BYTES} bytes; store large data as a file in the workspace and pass its path`,
    });
  }
});

/** Launch input as the form, the CLI and the API send it (validated at the tRPC boundary). */
/**
 * A launch's idempotency key (the client's choice: a double click or a retried request launches
 * once): 8 to 100 characters after trimming, storable text (no NUL, no unpaired surrogate).
 */
export const launchKeyField = textField("launchKey", 100).refine((v) => v.length >= 8, "launchKey: at least 8 characters");

export const launchTaskInputSchema = z
  .object(
    {
      goal: z.string().trim().min(1, "goal: must not be empty").max(MAX_GOAL_CHARS, `goal: at most ${MAX_GOAL_CHARS} characters`).optional(),
      demo: z
        .object({
          kind: z.enum(["license-audit", "mcp-audit"], "demo.kind: license-audit or mcp-audit"),
          limit: z.number().int().min(1, "demo.limit: at least 1").max(MAX_DEMO_PACKAGES, `demo.limit: at most ${MAX_DEMO_PACKAGES}`),
          emailTo: z.string().email("demo.emailTo: must be an email address").optional(),
          /** Also POST the summary as JSON here (the `http_post` tool; its origin must be in LONGHAUL_HTTP_ALLOW). */
          postUrl: z
            .url({ protocol: /^https?$/, error: "demo.postUrl: must be an http(s) URL" })
            .max(2_048, "demo.postUrl: at most 2048 characters")
            .optional(),
        })
        .optional(),
      profile: z.string().min(1).max(100).default("scripted"),
      stepBudget: z.number().int().min(1, "stepBudget: at least 1").max(MAX_STEP_BUDGET, `stepBudget: at most ${MAX_STEP_BUDGET}`).optional(),
      tokenBudget: z.number().int().min(1, "tokenBudget: at least 1").max(MAX_TOKEN_BUDGET, `tokenBudget: at most ${MAX_TOKEN_BUDGET}`).optional(),
      /** Dollar ceiling (USD, model spend incl. retries and checkpoints). Omitted: the profile's. */
      costBudgetUsd: z
        .number("costBudgetUsd: a number of US dollars")
        .min(MIN_COST_BUDGET_USD, `costBudgetUsd: at least ${MIN_COST_BUDGET_USD.toFixed(6)} (a millionth of a dollar, the stored precision)`)
        .max(MAX_COST_BUDGET_USD, `costBudgetUsd: at most ${MAX_COST_BUDGET_USD}`)
        .optional(),
      workspace: z.string().min(1).max(4_096).optional(),
      facts: launchFactsSchema.optional(),
      /**
       * Risky tool calls (send_email) wait for a human's Approve / Reject (a `risky_action` escalation).
       * Omitted: the profile's `requireApproval`.
       */
      requireApproval: z.boolean("requireApproval: true or false").optional(),
      /** Client-chosen key: the same key launches once (double clicks, retried requests); reused with another goal: CONFLICT. */
      launchKey: launchKeyField.optional(),
    },
    "input: must be an object with goal or demo (and optional profile, budgets, workspace, facts)",
  )
  // PostgreSQL text and jsonb cannot hold NUL characters (or unpaired surrogates): refused here, in
  // our words, rather than as a database error after part of the launch was written.
  .superRefine((v, ctx) => {
    const problem = findUnstorableString(v, "");
    if (problem) ctx.addIssue({ code: "custom", message: `${problem}: PostgreSQL cannot store it`, path: [] });
  })
  .refine((v) => Boolean(v.goal) !== Boolean(v.demo), { message: "give either goal or demo, not both and not neither", path: ["goal"] });

export type LaunchTaskInput = z.input<typeof launchTaskInputSchema>;

/** Ports the launch needs (implemented over Prisma and Inngest in server/db and server/inngest). */
export interface LaunchPorts {
  /** The task launched under this key, with its goal (a reuse with another goal is a CONFLICT). */
  findTaskByLaunchKey(launchKey: string): Promise<{ taskId: string; runId: string | null; goal?: string } | null>;
  /**
   * The profile by name; `requireApproval` is the default for the task's (false when absent);
   * `egress` its part of the egress policy (server/domain/egress-policy.ts).
   */
  findProfile(name: string): Promise<{
    id: string;
    stepBudget: number;
    tokenBudget: number | null;
    costBudgetUsd?: number | null;
    requireApproval?: boolean;
    egress?: ProfileEgress;
    /** The profile version the launch reads these from; the task records it (its runs use it). */
    versionId?: string;
    /** An archived profile is offered to no new launch. */
    archived?: boolean;
    /** The profile's MCP servers and tools (lib/contracts/mcp.ts `McpSelection`); absent = none. */
    mcpServers?: unknown[];
    /** The profile's own model (a smoke test records it; it does not call it). */
    model?: string;
  } | null>;
  /**
   * What profile `name` (its current version) refers to that cannot be resolved now — its key
   * variable, the variables of its headers, the `fromEnv` values of its MCP servers — one message
   * each, naming the profile or server, the field and the variable (server/domain/profile-references.ts).
   * Empty: everything resolves. Absent: nothing is checked.
   */
  unresolvedReferences?(name: string): Promise<string[]>;
  /**
   * Starts the selected MCP servers, lists their tools and returns the snapshot the task keeps
   * (server/tools/mcp/discover-tools.ts), or null for none. Throws AppError (a server that cannot
   * start: PRECONDITION_FAILED with its stderr). Absent: the launch offers no MCP tools.
   */
  discoverMcpTools?(selections: unknown[]): Promise<McpToolSnapshot | null>;
  /** The deployment's egress policy (the caller reads it from env(): LONGHAUL_EMAIL_ALLOW, LONGHAUL_HTTP_ALLOW, LONGHAUL_EGRESS_ON_BREACH). */
  deploymentEgress: EgressPolicy;
  workspaceIsDirectory(path: string): Promise<boolean>;
  /**
   * Whether the workspace lies inside an allowed root (after resolving symlinks), with the roots for
   * the error message. The file tools read anything inside a task's workspace, and there is no login:
   * the roots (LONGHAUL_WORKSPACE_ROOTS, default the default workspace) bound what a launch may expose.
   */
  workspaceAllowed(path: string): Promise<{ ok: true } | { ok: false; roots: string[] }>;
  createTaskWithRun(data: {
    taskId: string;
    runId: string;
    goal: string;
    profileId: string;
    /** The profile version the task runs with (null = the profile's current one, set by the database). */
    profileVersionId: string | null;
    stepBudget: number;
    tokenBudget: number | null;
    /** USD; null = no dollar ceiling. */
    costBudgetUsd: number | null;
    /** Risky tool calls wait for a human's approval (input, else the profile's). */
    requireApproval: boolean;
    workspace: string;
    input: Record<string, unknown>;
    launchKey: string | null;
    createdBy: string;
    /** The MCP tool snapshot (server/domain/mcp-tool-snapshot.ts), null = no MCP servers. */
    mcpTools?: McpToolSnapshot | null;
    /** The launch template the task comes from; null or absent = none. */
    templateId?: string | null;
    /** Where the budgets came from when derived from history; null or absent = given or default. */
    budgetBasis?: BudgetBasis | null;
    /** A profile smoke test (server/domain/profile-smoke.ts); null or absent = an ordinary task. */
    smoke?: SmokeSpec | null;
  }): Promise<void>;
  sendRunStarted(event: { taskId: string; runId: string }): Promise<void>;
  failLaunch(ids: { taskId: string; runId: string }, error: string): Promise<void>;
  newId(prefix: "task" | "run"): string;
  demoGoal(limit: number, emailTo?: string, postUrl?: string): string;
  defaultWorkspace: string;
}

export { DEMO_STEPS_BASE, DEMO_STEPS_PER_PACKAGE, demoStepBudget };

/**
 * Launches a task: creates Task (queued) + Run (initial) and sends `longhaul/run.started`.
 * Idempotent on `launchKey`: a repeat with the same goal returns the first launch's ids and creates
 * nothing; the key reused with another goal is refused. `requireApproval` (risky tools wait for a
 * human) and the budgets default to the profile's. A demo's recipient (`emailTo`, default
 * compliance@example.com) and `postUrl` are checked against the task's egress policy here, so a
 * destination the policy does not allow fails at launch with the rule it breaks, not steps later.
 *
 * @throws AppError BAD_INPUT (unknown profile, workspace not a directory or outside the allowed roots),
 *   REFUSED (a demo destination outside the egress policy), PRECONDITION_FAILED (the profile names a
 *   variable that is not set: its key, a header's, an MCP server's `fromEnv`), CONFLICT (launchKey
 *   already used for another goal), UNAVAILABLE (the event
 *   could not be delivered — the task is then marked failed with the reason; nothing is lost).
 */
export async function launchTask({
  input,
  actor,
  ports,
  templateId = null,
  budgetBasis = null,
  smoke = null,
}: {
  input: z.output<typeof launchTaskInputSchema>;
  actor: string;
  ports: LaunchPorts;
  /** Launch a profile smoke test of the profile's MCP tools on the offline smoke model (server/domain/profile-smoke.ts). */
  smoke?: { includeSideEffects: boolean } | null;
  /** The launch template this launch comes from (recorded on the task). */
  templateId?: string | null;
  /** Budgets of this launch derived from history (recorded on the task, quoted at a ceiling). */
  budgetBasis?: BudgetBasis | null;
}): Promise<{ taskId: string; runId: string; deduplicated: boolean }> {
  const mcpDemo = input.demo?.kind === "mcp-audit";
  const goal = input.demo ? (mcpDemo ? mcpAuditGoal(input.demo.limit) : ports.demoGoal(input.demo.limit, input.demo.emailTo, input.demo.postUrl)) : input.goal!;
  // The MCP demo runs on its own profile (its agent and its MCP servers) unless the launch names another.
  const profileName = mcpDemo && input.profile === "scripted" ? MCP_AUDIT_PROFILE : input.profile;
  if (input.launchKey) {
    const existing = await ports.findTaskByLaunchKey(input.launchKey);
    if (existing) {
      if (existing.goal !== undefined && existing.goal !== goal) {
        throw new AppError(
          "CONFLICT",
          `launchKey: "${input.launchKey}" already launched task ${existing.taskId} with another goal; use a new key for a new launch`,
        );
      }
      return { taskId: existing.taskId, runId: existing.runId ?? "", deduplicated: true };
    }
  }
  const profile = await ports.findProfile(profileName);
  if (!profile) throw new AppError("BAD_INPUT", `profile: no agent profile named "${profileName}"`);
  if (profile.archived) throw new AppError("BAD_INPUT", `profile: "${profileName}" is archived; an admin can copy it or unarchive it by applying it again`);
  // A key variable that is not set would launch a task whose every model call is refused (401), and
  // an MCP server's unset variable a server that cannot start: refused now, in words naming it.
  const unresolved = (await ports.unresolvedReferences?.(profileName)) ?? [];
  if (unresolved.length) {
    throw new AppError(
      "PRECONDITION_FAILED",
      `${unresolved.join("; ")}. The launch is refused: the task could not call its model or start its tools without ${unresolved.length === 1 ? "it" : "them"}. ` +
        "Set the variable where Longhaul runs (for the web app and the executor) and restart them, or change the profile.",
    );
  }
  if (input.demo && !mcpDemo) {
    const policy = mergeEgressPolicies(ports.deploymentEgress, profile.egress);
    const breaches = checkDestinations(
      {
        email: [{ field: "emailTo", address: input.demo.emailTo ?? DEMO_DEFAULT_EMAIL }],
        http: input.demo.postUrl ? [{ field: "postUrl", url: input.demo.postUrl }] : [],
      },
      policy,
    );
    if (breaches.length)
      throw new AppError(
        "REFUSED",
        `${breaches.map((b) => describeBreach(b, "demo.")).join("; ")}: refused at launch by the egress policy of profile "${input.profile}"`,
      );
  }
  const workspace = input.workspace ?? ports.defaultWorkspace;
  if (!(await ports.workspaceIsDirectory(workspace))) throw new AppError("BAD_INPUT", `workspace: "${workspace}" is not a directory on the server`);
  const allowed = await ports.workspaceAllowed(workspace);
  if (!allowed.ok) {
    throw new AppError(
      "BAD_INPUT",
      `workspace: "${workspace}" is outside the allowed roots (${allowed.roots.join(", ")}); an administrator can add roots with LONGHAUL_WORKSPACE_ROOTS`,
    );
  }

  // The tool list is part of the run's state: discovered now, kept with the task for all its runs. A
  // server that cannot start fails the launch here, before anything is written.
  const discovered = profile.mcpServers?.length && ports.discoverMcpTools ? await ports.discoverMcpTools(profile.mcpServers) : null;
  // A smoke test offers only the tools under test, and runs on the smoke model (its spec says so).
  const plan = smoke
    ? smokeLaunchPlan({
        snapshot: parseToolSnapshot(discovered),
        includeSideEffects: smoke.includeSideEffects,
        profile: profileName,
        profileModel: profile.model ?? "",
      })
    : null;
  const mcpTools = plan ? plan.mcpTools : discovered;
  const stepBudget =
    input.stepBudget ??
    plan?.stepBudget ??
    (input.demo ? Math.max(profile.stepBudget, mcpDemo ? mcpAuditStepBudget(input.demo.limit) : demoStepBudget(input.demo.limit)) : profile.stepBudget);
  const taskId = ports.newId("task");
  const runId = ports.newId("run");
  await ports.createTaskWithRun({
    taskId,
    runId,
    goal,
    profileId: profile.id,
    profileVersionId: profile.versionId ?? null,
    stepBudget,
    tokenBudget: input.tokenBudget ?? profile.tokenBudget,
    costBudgetUsd: input.costBudgetUsd ?? profile.costBudgetUsd ?? null,
    requireApproval: input.requireApproval ?? profile.requireApproval ?? false,
    workspace,
    input: { ...(input.demo ? { demo: input.demo.kind, limit: input.demo.limit } : {}), ...(input.facts ? { facts: input.facts } : {}) },
    launchKey: input.launchKey ?? null,
    createdBy: actor,
    mcpTools,
    templateId,
    budgetBasis,
    ...(plan ? { smoke: plan.smoke } : {}),
  });
  try {
    await ports.sendRunStarted({ taskId, runId });
  } catch (error) {
    const reason = `could not deliver longhaul/run.started to the executor: ${error instanceof Error ? error.message : String(error)}`;
    await ports.failLaunch({ taskId, runId }, reason);
    throw new AppError("UNAVAILABLE", reason, { cause: error });
  }
  return { taskId, runId, deduplicated: false };
}

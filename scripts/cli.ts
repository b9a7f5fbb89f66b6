/**
 * Longhaul's CLI, a client of the web app's tRPC API (LONGHAUL_URL, default http://127.0.0.1:$PORT).
 *
 *   npm run cli -- --help                       (and `npm run cli -- <command> --help`)
 *   npm run cli -- launch --demo license-audit|mcp-audit [--limit 20] [--wait]
 *   npm run cli -- launch --goal "…" [--profile scripted] [--step-budget N] [--wait]
 *   npm run cli -- launch --scenario <loop|stall|budget|drift|dead_end|tool_failure> [--wait]
 *   npm run cli -- launch --template <name> [--step-budget N] [--token-budget N] [--cost-budget usd] [--wait]
 *   npm run cli -- templates list | templates save <taskId> --name <name> | templates history <name>
 *   npm run cli -- templates edit <name> [--description …] [--launch <json>] | templates delete <name>
 *   npm run cli -- status <taskId>
 *   npm run cli -- cancel <taskId>   |   cancel --status running [--profile …] [--dry-run] [--wait]
 *   npm run cli -- resume <taskId>   |   resume --status failed [--failure transient] [--since <time>] [--dry-run] [--wait]
 *   npm run cli -- list [--status <status>] [--limit N]
 *   npm run cli -- profiles apply <file> [--dry-run] | profiles list [--all] | profiles test <name>
 *   npm run cli -- decide <escalationId> <decision> [--take-over] · mcp tools <server> [--refresh]
 *   npm run cli -- <group> --help  (eval, profiles, templates, mcp: the group's subcommands)
 *   npm run cli -- profiles smoke <name> [--include-side-effects] [--wait]
 *   npm run cli -- login --email <e> [--password <p> | stdin] [--days 30] [--roles operator,handler]
 *
 * Each HTTP request gives up after LONGHAUL_CLI_TIMEOUT seconds (default 30), exit 1 like an unreachable app.
 * Auth: LONGHAUL_TOKEN (an API token), else on this machine the admin token `npm start` keeps in
 * DATA_DIR/cli-token (scripts/lib/local-auth.ts).
 *   npm run cli -- costs [--since <date|Nd>] [--by profile|model|week|day|outcome|failure]
 *   npm run cli -- eval run <file|suite> --profiles a,b [--repeats n] [--wait] [--min-pass-rate 0.9] [--no-regression-from <evalRunId>]
 *   npm run cli -- eval report <evalRunId> [--compare-to <evalRunId>] [--format summary|csv|json] · eval cancel <evalRunId> · eval list · eval apply <file>
 *
 * Progress goes to stderr; the last stdout line is one compact JSON object (docs/CLI.md) — except
 * `eval report --format csv|json`, whose stdout is the export itself (the CSV, or the rows' JSON). With
 * --wait, `launch` returns when the task reaches a terminal status or starts waiting for a human.
 * Exit codes (scripts/lib/cli-exit.ts, listed in docs/CLI.md): 0 ok (with --wait or status: completed),
 * 1 the command failed (API error, unreachable app), 2 bad usage (unknown command or flag, bad value —
 * one line per problem, naming the flag and limit), 3 waiting for a human, 4 dead end, 5 failed,
 * 6 cancelled, 7 (status) still queued or running, 8 (eval run --wait) a gate failed.
 */
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../server/api/root.ts";
import { SETTLED_TASK_STATUSES, TASK_STATUSES } from "../lib/contracts/status.ts";
import { FAILURE_CLASSES } from "../lib/contracts/failure.ts";
import { EXIT_CODE_TABLE, EXIT_CODES, exitCodeForTaskStatus } from "./lib/cli-exit.ts";
import { SCENARIO_GOAL, SCENARIOS } from "../server/db/seed.ts";
import { launchTaskInputSchema } from "../server/domain/launch-task.ts";
import { decideEscalationInputSchema } from "../server/domain/decide-escalation.ts";
import {
  formatIssues,
  helpHint,
  issuesFromMessage,
  parseCommandLine,
  relabelFieldMessage,
  UsageError,
  type CommandSpec,
  type FieldLabel,
  type FlagValues,
  type InputIssue,
} from "./lib/cli-args.ts";
import { cliToken } from "./lib/local-auth.ts";
import { terminalSafe } from "./lib/cli-text.ts";
import { dueWords } from "../lib/contracts/escalation-timeout.ts";
import { isoUtc } from "../lib/contracts/dates.ts";
import { parseTimeFlag, sinceUntilProblem } from "./lib/cli-dates.ts";
import { taskListJson, taskListLine, taskSummaryJson } from "./lib/cli-task.ts";
import { COSTS_COMMAND, runCosts } from "./lib/cli-costs.ts";
import { PROFILES_COMMANDS, PROFILES_EXIT, runProfileSmoke, runProfiles } from "./lib/cli-profiles.ts";
import { EVAL_COMMANDS, runEval } from "./lib/cli-eval.ts";
import { runTemplates, TEMPLATES_COMMANDS } from "./lib/cli-templates.ts";
import { MCP_COMMANDS, runMcp } from "./lib/cli-mcp.ts";
import { rideOut, timedOut, unreachable } from "./lib/cli-wait.ts";

const PROGRAM = "npm run cli --";
const WAIT_DONE: ReadonlySet<string> = new Set(SETTLED_TASK_STATUSES);
const baseUrl = process.env.LONGHAUL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const token = cliToken(baseUrl);
/** Seconds each HTTP request may take before the CLI gives up (LONGHAUL_CLI_TIMEOUT, default 30): a frozen database must not hang a script. */
const timeoutS = Number(process.env.LONGHAUL_CLI_TIMEOUT ?? 30);
/** fetch with the request timeout: an app that accepts the connection but never answers ends as a TimeoutError. */
const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutS * 1000)]) : AbortSignal.timeout(timeoutS * 1000) });
const api = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: `${baseUrl}/api/trpc`,
      transformer: superjson,
      fetch: timedFetch,
      headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
    }),
  ],
});

// Limits come from the API's own input schemas, so the CLI and the server agree.
const launchShape = launchTaskInputSchema.shape;
const demoLimit = launchShape.demo.unwrap().shape.limit;
const stepBudget = launchShape.stepBudget.unwrap();
const LIST_LIMIT = { min: 1, max: 200 };

/**
 * `--idempotency-key`: the caller's key for the action. Sending the same key again (a retry after a
 * timeout, a script run twice) acts once and answers with the first result (server/db/request-keys.ts).
 */
const KEY_FLAG: CommandSpec["flags"] = {
  "idempotency-key": {
    type: "string",
    value: "<key>",
    description: "8–100 characters (a UUID fits); the same key again acts once and answers with the first result",
  },
};
/** The key flag's value as an input field, or nothing. */
const keyOf = (values: FlagValues) => (typeof values["idempotency-key"] === "string" ? { idempotencyKey: values["idempotency-key"] } : {});

/** Filter flags of a batch resume or cancel (the task list's filter: task.batchPreview / task.batchStart). */
const BATCH_FLAGS: CommandSpec["flags"] = {
  status: { type: "string", value: "<status>", description: "tasks in this status", choices: TASK_STATUSES },
  failure: { type: "string", value: "<class>", description: "tasks that failed in this class (as /costs counts them)", choices: FAILURE_CLASSES },
  profile: { type: "string", value: "<name>", description: "tasks of this agent profile" },
  since: {
    type: "string",
    value: "<time|date|Nd>",
    description: "tasks launched at or after: an ISO date-time (2026-12-01T14:05:00Z), a UTC day YYYY-MM-DD, or N days ago (30d)",
    check: (value) => parseTimeFlag({ flag: "since", value, accept: "instant" }).problem ?? null,
  },
  until: {
    type: "string",
    value: "<time|date|Nd>",
    description: "tasks launched before (the same forms as --since)",
    check: (value) => parseTimeFlag({ flag: "until", value, accept: "instant" }).problem ?? null,
  },
  "dry-run": { type: "boolean", description: "only say how many tasks it would take, which it would skip and the estimated cost" },
  wait: { type: "boolean", description: "wait until every task of the batch is done, printing progress to stderr" },
};
const BATCH_NOTES = [
  "Give a <taskId>, or at least one of --status, --failure, --profile, --since, --until for a batch (at most 1,000 tasks).",
  "A batch resume starts each task from its latest checkpoint, LONGHAUL_BATCH_CONCURRENCY runs at a time; one audit entry per task.",
];
const BATCH_FILTER_FLAGS = ["status", "failure", "profile", "since", "until"] as const;

const COMMANDS: readonly CommandSpec[] = [
  {
    name: "launch",
    summary: "Launch a task (a demo, a misbehaving scenario, or any goal); prints its summary.",
    flags: {
      demo: { type: "string", value: "<name>", description: "launch a demo", choices: ["license-audit", "mcp-audit"] },
      limit: {
        type: "string",
        value: "<n>",
        description: "packages to audit, with --demo (default 50)",
        int: { min: demoLimit.minValue ?? 1, max: demoLimit.maxValue ?? 5000 },
      },
      scenario: {
        type: "string",
        value: "<name>",
        description: "a scripted misbehaving agent (picks its profile and a short goal)",
        choices: Object.keys(SCENARIOS),
      },
      goal: { type: "string", value: "<text>", description: "the task's goal, verbatim" },
      template: { type: "string", value: "<name>", description: "launch from a saved launch template (budget flags override its budgets)" },
      profile: { type: "string", value: "<name>", description: "agent profile (default scripted)" },
      "step-budget": {
        type: "string",
        value: "<n>",
        description: "model + tool steps allowed",
        int: { min: stepBudget.minValue ?? 1, max: stepBudget.maxValue ?? 100_000 },
      },
      "token-budget": {
        type: "string",
        value: "<n>",
        description: "prompt + completion tokens allowed (default: the profile's)",
        int: { min: 1, max: 1_000_000_000 },
      },
      "cost-budget": { type: "string", value: "<usd>", description: "dollar ceiling, e.g. 0.50 (default: the profile's; model spend incl. retries)" },
      "require-approval": { type: "boolean", description: "risky actions (send_email) wait for a human's Approve / Reject" },
      "post-url": {
        type: "string",
        value: "<url>",
        description: "with --demo: also POST the summary as JSON here (its origin must be in LONGHAUL_HTTP_ALLOW)",
      },
      workspace: { type: "string", value: "<dir>", description: "folder on the server the file tools read (default LONGHAUL_WORKSPACE)" },
      wait: { type: "boolean", description: "wait until the task ends or waits for a human, printing progress to stderr" },
      ...KEY_FLAG,
    },
    notes: [
      "Give --demo, --scenario or --goal (with --scenario, --goal replaces the scenario's short goal).",
      "--idempotency-key is the launch's launchKey: the same key again returns the task it launched.",
    ],
    examples: [
      `${PROGRAM} launch --demo license-audit --limit 20 --wait`,
      `${PROGRAM} launch --goal "Summarise the README" --profile scripted`,
      `${PROGRAM} launch --scenario loop --wait`,
    ],
  },
  {
    name: "status",
    summary: "Show a task: status, steps, facts, artifacts, outbox, alerts, escalation.",
    positionals: [{ name: "taskId", description: "the task's id, as printed by launch or list" }],
    examples: [`${PROGRAM} status task_01jx…`],
  },
  {
    name: "cancel",
    summary: "Cancel a task and its running run (a no-op when already cancelled), or every task a filter matches (a batch).",
    positionals: [{ name: "taskId", description: "the task's id (or give filter flags instead)", optional: true }],
    flags: { ...BATCH_FLAGS, ...KEY_FLAG },
    notes: BATCH_NOTES,
    examples: [`${PROGRAM} cancel task_01jx…`, `${PROGRAM} cancel --status running --profile scripted --dry-run`],
  },
  {
    name: "resume",
    summary: "Resume a task from its latest checkpoint, or every task a filter matches (a batch under a concurrency cap).",
    positionals: [{ name: "taskId", description: "the task's id (or give filter flags instead)", optional: true }],
    flags: { ...BATCH_FLAGS, guidance: { type: "string", value: "<text>", description: "guidance for the resumed runs" }, ...KEY_FLAG },
    notes: BATCH_NOTES,
    examples: [
      `${PROGRAM} resume task_01jx…`,
      `${PROGRAM} resume --status failed --failure transient --since 2026-12-01T14:05:00Z --dry-run`,
      `${PROGRAM} resume --status failed --since 2026-12-01T14:05:00Z --wait`,
    ],
  },
  {
    name: "list",
    summary: "List recent tasks (newest first): id, status, steps used / budget, goal.",
    flags: {
      status: { type: "string", value: "<status>", description: "only tasks in this status", choices: TASK_STATUSES },
      limit: { type: "string", value: "<n>", description: "at most this many tasks, default 200", int: LIST_LIMIT },
    },
    examples: [`${PROGRAM} list`, `${PROGRAM} list --status waiting_for_human`],
  },
  {
    name: "escalations",
    summary: "List escalations: open ones first (overdue marked), then decided ones.",
    flags: {
      status: {
        type: "string",
        value: "<open|decided>",
        description: "only open or only decided ones (the inbox's Open / Decided tabs; closed is the same as decided)",
        choices: ["open", "decided", "closed"],
      },
    },
    examples: [`${PROGRAM} escalations --status open`],
  },
  {
    name: "decide",
    summary: "Decide an escalation: resume | approve | reject | dead_end | cancel (applied at once, once).",
    positionals: [
      { name: "escalationId", description: "the escalation's id, as printed by escalations or status" },
      { name: "decision", description: "resume, approve, reject, dead_end or cancel" },
    ],
    flags: {
      guidance: { type: "string", value: "<text>", description: "for the resumed run (resume, approve, reject)" },
      "extra-steps": { type: "string", value: "<n>", description: "raise the step budget on resume", int: { min: 1, max: 100_000 } },
      "extra-tokens": { type: "string", value: "<n>", description: "raise the token budget on resume", int: { min: 1, max: 1_000_000_000 } },
      "extra-usd": { type: "string", value: "<usd>", description: "raise the dollar budget on resume, e.g. 0.50" },
      reason: { type: "string", value: "<text>", description: "why it is a dead end (required with dead_end)" },
      "take-over": {
        type: "boolean",
        description: 'decide an escalation another handler has claimed, taking the claim over from them (the inbox\'s "Take over from …")',
      },
      ...KEY_FLAG,
    },
    examples: [
      `${PROGRAM} decide esc_01jx… resume --guidance "read the README once, then finish" --extra-steps 20`,
      `${PROGRAM} decide esc_01jx… dead_end --reason "the data is not there"`,
    ],
  },
  {
    name: "login",
    summary: "Sign in with email and password and create an API token for this CLI (printed once: export LONGHAUL_TOKEN=…).",
    flags: {
      email: { type: "string", value: "<email>", description: "your account's email" },
      password: { type: "string", value: "<password>", description: "your password (default: read from stdin, or LONGHAUL_PASSWORD)" },
      days: { type: "string", value: "<n>", description: "days until the token expires (default 30)", int: { min: 1, max: 366 } },
      roles: { type: "string", value: "<a,b>", description: "roles the token acts with (default: all of yours)" },
      name: { type: "string", value: "<text>", description: "the token's name (default cli@<host>)" },
    },
    examples: [
      `${PROGRAM} login --email ada@example.com`,
      `LONGHAUL_URL=https://longhaul.example.com ${PROGRAM} login --email ada@example.com --roles operator --days 7`,
    ],
  },
  COSTS_COMMAND,
  ...PROFILES_COMMANDS,
  ...EVAL_COMMANDS,
  ...TEMPLATES_COMMANDS,
  ...MCP_COMMANDS,
];

/** Reads all of stdin (a password piped in, or typed and ended with Ctrl-D), trimmed of the final newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/**
 * `login`: signs in at better-auth's /api/auth/sign-in/email, creates a token with the session
 * (account.createToken), signs the session out again. Returns `{token, id, roles, expiresAt}`.
 */
async function login(values: FlagValues) {
  const email = typeof values.email === "string" ? values.email : undefined;
  if (!email) throw new UsageError(["--email: required"], "login");
  if (process.stdin.isTTY && typeof values.password !== "string" && !process.env.LONGHAUL_PASSWORD) process.stderr.write("password (then Enter and Ctrl-D): ");
  const password = typeof values.password === "string" ? values.password : (process.env.LONGHAUL_PASSWORD ?? (await readStdin()));
  const res = await timedFetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in refused (${res.status}): ${((await res.json().catch(() => ({}))) as { message?: string }).message ?? res.statusText}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const session = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${baseUrl}/api/trpc`, transformer: superjson, fetch: timedFetch, headers: () => ({ cookie, origin: baseUrl }) })],
  });
  const roles =
    typeof values.roles === "string"
      ? values.roles
          .split(",")
          .map((r) => r.trim())
          .filter(Boolean)
      : undefined;
  const created = await session.account.createToken.mutate({
    name: typeof values.name === "string" ? values.name : `cli@${(await import("node:os")).hostname()}`,
    ...(roles ? { roles: roles as ("operator" | "handler" | "manager" | "admin")[] } : {}),
    ...(typeof values.days === "number" ? { expiresInDays: values.days } : {}),
  });
  await timedFetch(`${baseUrl}/api/auth/sign-out`, {
    method: "POST",
    headers: { cookie, origin: baseUrl, "content-type": "application/json" },
    body: "{}",
  }).catch(() => undefined);
  process.stderr.write(
    `token "${created.name}" created (roles ${created.roles.join(", ")}, expires ${created.expiresAt.toISOString()}); it is shown once:\n  export LONGHAUL_TOKEN=${created.token}\n`,
  );
  return { token: created.token, id: created.id, roles: created.roles, expiresAt: created.expiresAt.toISOString() };
}

const ABOUT = `Longhaul CLI — talks to the web app's API at ${baseUrl} (LONGHAUL_URL, or PORT). The last stdout line of a command is one JSON object.`;
const FOOTER = ["Exit codes:", ...EXIT_CODE_TABLE.map((e) => `  ${e.code}  ${e.meaning}`)];

async function summary(taskId: string) {
  return taskSummaryJson(await api.task.get.query({ taskId }));
}

/** Calls `call`, riding out a restart of the web app or its database (cli-wait.ts rideOut); `goesOn` says what goes on meanwhile. */
const poll = <T>(call: () => Promise<T>, goesOn: string): Promise<T> => rideOut(call, { baseUrl, goesOn });

async function waitFor(taskId: string) {
  let last = "";
  for (;;) {
    const s = await poll(() => summary(taskId), "the task goes on");
    const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
    const line = `${s.status} · ${plural(s.steps, "step")} · ${plural(s.facts, "fact")}`;
    if (line !== last) process.stderr.write(`  ${line}\n`);
    last = line;
    if (WAIT_DONE.has(s.status)) return s;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A dollar amount as typed (`0.50`, `-1`): a number, so the API schema's range message names the limit; anything else is "not a number". */
const USD_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;

/** The launch input from the flags, checked against the API's schema. @throws UsageError naming each bad flag. */
function launchInput(values: FlagValues) {
  const str = (name: string) => (typeof values[name] === "string" ? values[name] : undefined);
  const num = (name: string) => (typeof values[name] === "number" ? values[name] : undefined);
  const problems: string[] = [];
  const sources = ["demo", "scenario"].filter((f) => values[f] !== undefined);
  if (sources.length > 1) problems.push("--demo, --scenario: give one of them, not both");
  if (values.demo !== undefined && values.goal !== undefined) problems.push("--goal: cannot be combined with --demo (the demo has its own goal)");
  if (values.scenario !== undefined && values.profile !== undefined)
    problems.push("--profile: cannot be combined with --scenario (the scenario picks its profile)");
  if (values.limit !== undefined && values.demo === undefined) problems.push("--limit: only applies with --demo license-audit");
  if (values["post-url"] !== undefined && values.demo === undefined) problems.push("--post-url: only applies with --demo license-audit");
  if (!sources.length && values.goal === undefined)
    problems.push('launch needs one of --template <name>, --demo license-audit, --scenario <name> or --goal "…"');
  if (problems.length) throw new UsageError(problems, "launch");

  const scenario = str("scenario");
  const profile = scenario ? SCENARIOS[scenario as keyof typeof SCENARIOS] : (str("profile") ?? "scripted");
  const goal = str("goal") ?? (scenario ? SCENARIO_GOAL : undefined);
  const input = {
    ...(values.demo !== undefined
      ? {
          demo: {
            kind: values.demo === "mcp-audit" ? ("mcp-audit" as const) : ("license-audit" as const),
            limit: num("limit") ?? 50,
            ...(str("post-url") ? { postUrl: str("post-url") } : {}),
          },
        }
      : { goal }),
    profile,
    stepBudget: num("step-budget"),
    tokenBudget: num("token-budget"),
    costBudgetUsd: str("cost-budget") === undefined ? undefined : USD_TEXT.test(str("cost-budget")!) ? Number(str("cost-budget")) : Number.NaN,
    ...(values["require-approval"] === true ? { requireApproval: true } : {}),
    workspace: str("workspace"),
    ...(str("idempotency-key") !== undefined ? { launchKey: str("idempotency-key") } : {}),
  };
  const parsed = launchTaskInputSchema.safeParse(input);
  if (!parsed.success) {
    // The schema's cross-field rule ("either goal or demo") only restates a field problem already listed.
    const specific = parsed.error.issues.filter((i) => i.code !== "custom");
    throw new UsageError(formatIssues(specific.length ? specific : parsed.error.issues, labeller(values, [])), "launch");
  }
  return input;
}

/**
 * `launch --template <name>`: the template's name and the budget flags that override its budgets.
 * @throws UsageError for flags that describe a task (goal, demo, scenario, profile, workspace: the template has them).
 */
function templateLaunchInput(values: FlagValues) {
  const clash = ["goal", "demo", "scenario", "profile", "limit", "post-url", "workspace"].filter((f) => values[f] !== undefined);
  if (clash.length)
    throw new UsageError(
      clash.map((f) => `--${f}: cannot be combined with --template (the template has it)`),
      "launch",
    );
  const num = (name: string) => (typeof values[name] === "number" ? values[name] : undefined);
  const usd = typeof values["cost-budget"] === "string" ? values["cost-budget"] : undefined;
  return {
    template: String(values.template),
    overrides: {
      stepBudget: num("step-budget"),
      tokenBudget: num("token-budget"),
      costBudgetUsd: usd === undefined ? undefined : USD_TEXT.test(usd) ? Number(usd) : Number.NaN,
      ...(values["require-approval"] === true ? { requireApproval: true } : {}),
    },
  };
}

/**
 * `launch --template`: prints what the template's completed tasks took (p50 / p90 steps and
 * cost) and the suggested budgets to stderr before the launch starts, then launches.
 */
async function launchFromTemplate(values: FlagValues) {
  const input = templateLaunchInput(values);
  const h = await api.template.history.query({ template: input.template });
  const usd = (x: number | null) => (x === null ? "—" : `$${x}`);
  process.stderr.write(
    `template ${terminalSafe(h.template)}: ${terminalSafe(h.note)}; cost p50 ${usd(h.costP50Usd)}, p90 ${usd(h.costP90Usd)}; suggested budgets ${h.stepBudget ?? "—"} steps, ${usd(h.costBudgetUsd)}\n`,
  );
  return api.template.launch.mutate(input);
}

/** The decide input from the arguments, checked against the API's schema. @throws UsageError naming each bad flag. */
function decideInput(values: FlagValues, positionals: readonly string[]) {
  const str = (name: string) => (typeof values[name] === "string" ? values[name] : undefined);
  const num = (name: string) => (typeof values[name] === "number" ? values[name] : undefined);
  const usd = str("extra-usd");
  const budgetIncrease = {
    ...(num("extra-steps") !== undefined ? { steps: num("extra-steps") } : {}),
    ...(num("extra-tokens") !== undefined ? { tokens: num("extra-tokens") } : {}),
    ...(usd !== undefined ? { usd: USD_TEXT.test(usd) ? Number(usd) : Number.NaN } : {}),
  };
  const input = {
    escalationId: positionals[0],
    decision: positionals[1],
    ...(str("guidance") !== undefined ? { guidance: str("guidance") } : {}),
    ...(str("reason") !== undefined ? { deadEndReason: str("reason") } : {}),
    ...(Object.keys(budgetIncrease).length ? { budgetIncrease } : {}),
    ...keyOf(values),
  };
  const parsed = decideEscalationInputSchema.safeParse(input);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error.issues, labeller(values, positionals)), "decide");
  return parsed.data;
}

/**
 * `decide --take-over`: who holds the escalation's claim now, as `takeOverFrom` (the API moves the
 * claim only if that handler still holds it, so a claim taken in between is refused, not overridden);
 * nothing when it is unclaimed. Says on stderr whom it takes it over from.
 */
async function takeOverFrom(escalationId: string): Promise<{ takeOverFrom?: string }> {
  const e = await api.escalation.get.query({ escalationId });
  if (!e.claimedBy) return {};
  process.stderr.write(`taking ${escalationId} over from ${terminalSafe(e.claimedBy)}${e.claimedAt ? ` (claimed since ${e.claimedAt.toISOString()})` : ""}\n`);
  return { takeOverFrom: e.claimedBy };
}

/**
 * How an API input field is named on the command line (`demo.limit` → `--limit`, `taskId` →
 * `<taskId>`), with the raw value given for it; null for fields the CLI does not set.
 */
function labeller(values: FlagValues, positionals: readonly string[]): (path: string) => FieldLabel {
  const flags: Record<string, string> = {
    goal: "goal",
    "demo.limit": "limit",
    "demo.postUrl": "post-url",
    profile: "profile",
    stepBudget: "step-budget",
    tokenBudget: "token-budget",
    costBudgetUsd: "cost-budget",
    "overrides.stepBudget": "step-budget",
    "overrides.tokenBudget": "token-budget",
    "overrides.costBudgetUsd": "cost-budget",
    template: "template",
    workspace: "workspace",
    status: "status",
    "selection.filter.status": "status",
    "selection.filter.failure": "failure",
    "selection.filter.profile": "profile",
    "selection.filter.from": "since",
    "selection.filter.to": "until",
    limit: "limit",
    guidance: "guidance",
    deadEndReason: "reason",
    idempotencyKey: "idempotency-key",
    launchKey: "idempotency-key",
    "budgetIncrease.steps": "extra-steps",
    "budgetIncrease.tokens": "extra-tokens",
    "budgetIncrease.usd": "extra-usd",
  };
  return (path) => {
    if (path === "taskId" || path === "escalationId") return { label: `<${path}>`, given: positionals[0] };
    if (path === "decision") return { label: "<decision>", given: positionals[1] };
    const flag = flags[path];
    return flag ? { label: `--${flag}`, given: values[flag] } : null;
  };
}

/** Runs a command; returns what to print (the JSON line) and, for outcomes of a task, the exit code (else 0). */
async function run(command: string, values: FlagValues, positionals: string[]): Promise<unknown> {
  switch (command) {
    case "launch": {
      const launched = values.template !== undefined ? await launchFromTemplate(values) : await api.task.launch.mutate(launchInput(values));
      process.stderr.write(`launched ${launched.taskId} (${baseUrl}/tasks/${launched.taskId})\n`);
      if (!values.wait) return summary(launched.taskId);
      const done = await waitFor(launched.taskId);
      return { ...done, [EXIT]: exitCodeForTaskStatus(done.status) };
    }
    case "status": {
      const s = await summary(positionals[0]!);
      return { ...s, [EXIT]: exitCodeForTaskStatus(s.status) };
    }
    case "cancel":
    case "resume": {
      const selection = batchSelection(command, values, positionals);
      if (!selection) {
        const taskId = positionals[0]!;
        return command === "cancel"
          ? api.task.cancel.mutate({ taskId })
          : api.task.resume.mutate({ taskId, ...(typeof values.guidance === "string" ? { guidance: values.guidance } : {}), ...keyOf(values) });
      }
      return runBatch(command, selection, values);
    }
    case "list": {
      const status = values.status as (typeof TASK_STATUSES)[number] | undefined;
      const { rows } = await api.task.list.query({ limit: typeof values.limit === "number" ? values.limit : LIST_LIMIT.max, ...(status ? { status } : {}) });
      for (const r of rows) process.stderr.write(`${taskListLine(r)}\n`);
      return { tasks: rows.map(taskListJson) };
    }
    case "escalations": {
      const rows = await api.escalation.list.query(values.status ? { status: values.status as "open" | "decided" | "closed" } : {});
      for (const e of rows)
        process.stderr.write(
          `${e.id}  ${e.status.padEnd(8)} ${terminalSafe(e.reason).padEnd(17)} ${e.taskId}  ${e.overdue ? "OVERDUE · " : ""}${dueWords(e, isoUtc)}${e.phase === "reminders_over" ? " · reminders over" : ""}\n`,
        );
      return {
        escalations: rows.map((e) => ({
          id: e.id,
          taskId: e.taskId,
          reason: e.reason,
          status: e.status,
          dueAt: e.dueAt.toISOString(),
          overdue: e.overdue,
          phase: e.phase,
          nextReminderAt: e.nextReminderAt?.toISOString() ?? null,
        })),
      };
    }
    case "decide": {
      const input = decideInput(values, positionals);
      return api.escalation.decide.mutate(values["take-over"] === true ? { ...input, ...(await takeOverFrom(input.escalationId)) } : input);
    }
    case "mcp tools":
      return runMcp(api, values, positionals);
    case "login":
      return login(values);
    case "costs":
      return runCosts(api, values);
    case "profiles smoke": {
      const out = await runProfileSmoke(api, values, positionals, waitFor, (taskId) => `${baseUrl}/tasks/${taskId}`);
      return values.wait ? { ...out, [EXIT]: exitCodeForTaskStatus(out.status) } : out;
    }
    case "profiles apply":
    case "profiles list":
    case "profiles test": {
      const out = await runProfiles(api, command, values, positionals);
      return out && typeof out === "object" && PROFILES_EXIT in out ? { ...out, [EXIT]: EXIT_CODES.commandFailed } : out;
    }
    case "templates list":
    case "templates save":
    case "templates history":
    case "templates edit":
    case "templates delete":
      return runTemplates(api, command, values, positionals);
    case "eval run":
    case "eval report":
    case "eval cancel":
    case "eval list":
    case "eval apply": {
      const { out, gateFailed, raw } = await runEval(api, command, values, positionals, poll);
      if (raw !== undefined) return { [RAW]: raw };
      return gateFailed ? { ...(out as object), [EXIT]: EXIT_CODES.gateFailed } : out;
    }
    default:
      throw new UsageError([`"${command}": unknown command`], null);
  }
}

/** The batch filter of `resume`/`cancel`, or null for one task; every usage problem at once. @throws UsageError */
function batchSelection(command: "resume" | "cancel", values: FlagValues, positionals: readonly string[]) {
  const given = BATCH_FILTER_FLAGS.filter((f) => values[f] !== undefined);
  const problems: string[] = [];
  if (positionals.length && given.length) problems.push(`<taskId>: give a task id or filter flags (${given.map((f) => `--${f}`).join(", ")}), not both`);
  if (!positionals.length && !given.length)
    problems.push(`${command} needs a <taskId> or at least one of ${BATCH_FILTER_FLAGS.map((f) => `--${f}`).join(", ")}`);
  if (positionals.length)
    for (const f of ["dry-run", "wait"] as const) if (values[f] !== undefined) problems.push(`--${f}: only applies to a batch (filter flags)`);
  const str = (f: string) => (typeof values[f] === "string" ? values[f] : undefined);
  const since = str("since") !== undefined ? parseTimeFlag({ flag: "since", value: str("since")!, accept: "instant" }) : undefined;
  const until = str("until") !== undefined ? parseTimeFlag({ flag: "until", value: str("until")!, accept: "instant" }) : undefined;
  for (const p of [since?.problem, until?.problem]) if (p !== undefined) problems.push(p);
  const order = since?.problem || until?.problem ? null : sinceUntilProblem(since?.value, until?.value, true);
  if (order) problems.push(order);
  if (problems.length) throw new UsageError(problems, command);
  if (positionals.length) return null;
  const filter = {
    ...(str("status") ? { status: [str("status") as (typeof TASK_STATUSES)[number]] } : {}),
    ...(str("failure") ? { failure: str("failure") as (typeof FAILURE_CLASSES)[number] } : {}),
    ...(str("profile") !== undefined ? { profile: str("profile") } : {}),
    ...(since?.value !== undefined ? { from: since.value } : {}),
    ...(until?.value !== undefined ? { to: until.value } : {}),
  };
  return { filter };
}

/** A batch resume or cancel: preview (--dry-run), or start it and, with --wait, follow its progress until no item is pending or running. */
async function runBatch(action: "resume" | "cancel", selection: { filter: Record<string, unknown> }, values: FlagValues) {
  const input = { action, selection } as Parameters<typeof api.task.batchPreview.query>[0];
  const describe = (p: {
    matched: number;
    taskIds: string[];
    skipped: { reason: string; count: number }[];
    estimatedUsd: number;
    unestimated: number;
    concurrency: number;
  }) => {
    process.stderr.write(`matched ${p.matched}; ${action} ${p.taskIds.length}${action === "resume" ? `, ${p.concurrency} at a time` : ""}\n`);
    for (const s of p.skipped) process.stderr.write(`  skipped ${s.count}: ${terminalSafe(s.reason)}\n`);
    if (action === "resume")
      process.stderr.write(
        `estimated cost $${p.estimatedUsd.toFixed(4)} (median completed task of each profile${p.unestimated ? `; ${p.unestimated} without an estimate` : ""})\n`,
      );
  };
  if (values["dry-run"]) {
    const p = await api.task.batchPreview.query(input);
    describe(p);
    return {
      dryRun: true,
      action,
      matched: p.matched,
      tasks: p.taskIds.length,
      taskIds: p.taskIds,
      skipped: p.skipped,
      estimatedUsd: p.estimatedUsd,
      unestimated: p.unestimated,
    };
  }
  const started = await api.task.batchStart.mutate({
    ...input,
    ...(typeof values.guidance === "string" ? { guidance: values.guidance } : {}),
    ...keyOf(values),
  });
  describe(started);
  process.stderr.write(`batch ${started.batchId} started\n`);
  let progress = await api.task.batch.query({ batchId: started.batchId });
  while (values.wait && !progress.finished) {
    await new Promise((r) => setTimeout(r, 2000));
    progress = await poll(() => api.task.batch.query({ batchId: started.batchId }), "the batch goes on");
    const c = progress.counts;
    process.stderr.write(
      `  ${c.done + c.skipped + c.failed}/${progress.total}: ${c.pending} pending, ${c.running} running, ${c.done} done, ${c.skipped} skipped, ${c.failed} failed\n`,
    );
  }
  return { batchId: started.batchId, action, tasks: started.taskIds.length, skipped: started.skipped, counts: progress.counts, finished: progress.finished };
}

/** Key under which run() hands back the exit code of a task outcome (not printed: JSON.stringify skips symbols). */
const EXIT = Symbol("exit code");
/** Key under which run() hands back text to print as stdout instead of the JSON line (`eval report --format csv`). */
const RAW = Symbol("raw stdout");

/** Prints usage problems (stderr, one a line, then the help hint) and the JSON line; exit 2. */
function usageExit(problems: string[], command: string | null): never {
  for (const p of problems) console.error(terminalSafe(p));
  console.error(helpHint(PROGRAM, command));
  console.log(JSON.stringify({ error: problems.join("; "), problems }));
  process.exit(EXIT_CODES.usage);
}

async function main(): Promise<void> {
  // A group's subcommands (`eval run`, `profiles apply`, `mcp tools`) are one command each to the parser.
  const parsed = parseCommandLine(process.argv.slice(2), PROGRAM, ABOUT, COMMANDS, FOOTER);
  if (parsed.kind === "help") {
    console.log(parsed.text);
    process.exit(0);
  }
  if (parsed.kind === "usage_error") usageExit(parsed.problems, parsed.command);
  if (!(timeoutS > 0)) usageExit([`LONGHAUL_CLI_TIMEOUT: a number of seconds above 0, got "${process.env.LONGHAUL_CLI_TIMEOUT}"`], parsed.command);
  try {
    const out = await run(parsed.command, parsed.values, parsed.positionals);
    if (out && typeof out === "object" && RAW in out) {
      const text = (out as { [RAW]: string })[RAW];
      await new Promise<void>((r) => process.stdout.write(text, () => r()));
      process.exit(EXIT_CODES.ok);
    }
    console.log(JSON.stringify(out));
    const code = out && typeof out === "object" && EXIT in out ? (out as { [EXIT]: number })[EXIT] : EXIT_CODES.ok;
    process.exit(code);
  } catch (error) {
    if (error instanceof UsageError) usageExit(error.problems, error.command);
    // The server rejected the input (its zod issues come back as JSON, an AppError BAD_INPUT as
    // "<field>: …"): the same one-line-per-problem form, exit 2.
    if (error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "BAD_REQUEST") {
      const labelOf = labeller(parsed.values, parsed.positionals);
      const issues = (error.data as { issues?: InputIssue[] | null } | undefined)?.issues ?? issuesFromMessage(error.message);
      usageExit(issues ? formatIssues(issues, labelOf) : [relabelFieldMessage(error.message, labelOf) ?? error.message], parsed.command);
    }
    // A claim another handler holds: the server names `takeOverFrom`, which is --take-over here.
    const takeOverHint =
      error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "CONFLICT" && /takeOverFrom:/.test(error.message)
        ? "\nAdd --take-over to decide it in their place (the claim moves to you)."
        : "";
    const message = timedOut(error)
      ? `Longhaul at ${baseUrl} did not answer within ${timeoutS} s — the app or its database may be stuck (LONGHAUL_CLI_TIMEOUT sets the limit in seconds)`
      : unreachable(error)
        ? `cannot reach Longhaul at ${baseUrl} — is \`npm start\` running? (set LONGHAUL_URL or PORT)`
        : error instanceof Error
          ? error.message
          : String(error);
    console.error(terminalSafe(message + takeOverHint, { multiline: true }));
    console.log(JSON.stringify({ error: message }));
    process.exit(EXIT_CODES.commandFailed);
  }
}

void main();

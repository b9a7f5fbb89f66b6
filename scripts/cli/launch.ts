/**
 * `launch`: a demo, a misbehaving scenario, a goal of one's own, or a saved launch template; with
 * `--wait`, follows the task until it settles or waits for a human and exits with its outcome
 * (scripts/lib/cli-exit.ts exitCodeForTaskStatus). The flags' limits come from the API's own input
 * schema (server/domain/launch-task.ts), so the CLI and the server agree.
 */
import { formatIssues, UsageError, type FlagValues } from "../lib/cli-args.ts";
import { exitCodeForTaskStatus } from "../lib/cli-exit.ts";
import { terminalSafe } from "../lib/cli-text.ts";
import { SCENARIO_GOAL, SCENARIOS } from "../../server/db/seed.ts";
import { launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { api, baseUrl, PROGRAM, summary, waitFor } from "./client.ts";
import { EXIT, KEY_FLAG, usdValue, type CliCommand } from "./command.ts";
import { labeller } from "./labels.ts";

const launchShape = launchTaskInputSchema.shape;
const demoLimit = launchShape.demo.unwrap().shape.limit;
const stepBudget = launchShape.stepBudget.unwrap();

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
    costBudgetUsd: str("cost-budget") === undefined ? undefined : usdValue(str("cost-budget")!),
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
      costBudgetUsd: usd === undefined ? undefined : usdValue(usd),
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

export const LAUNCH: CliCommand = {
  spec: {
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
  async run(values) {
    const launched = values.template !== undefined ? await launchFromTemplate(values) : await api.task.launch.mutate(launchInput(values));
    process.stderr.write(`launched ${launched.taskId} (${baseUrl}/tasks/${launched.taskId})\n`);
    if (!values.wait) return summary(launched.taskId);
    const done = await waitFor(launched.taskId);
    return { ...done, [EXIT]: exitCodeForTaskStatus(done.status) };
  },
};

/**
 * `npm run cli -- costs [--since …] [--until …] [--by profile|model|week|day|outcome|failure]`: the
 * /costs rollups from the API (`cost.rollup`, the same query as the page). Human table on stderr,
 * last stdout line JSON (printed by scripts/cli.ts). Kept apart from the other commands so they
 * and this one change independently.
 */
import type { TRPCClient } from "@trpc/client";
import type { AppRouter } from "../../server/api/root.ts";
import { COST_OUTCOMES } from "../../server/domain/cost-rollup.ts";
import { UsageError, type CommandSpec, type FlagValues } from "./cli-args.ts";
import { terminalSafe } from "./cli-text.ts";
import { parseTimeFlag, sinceUntilProblem } from "./cli-dates.ts";

const BY = ["profile", "model", "week", "day", "outcome", "failure"] as const;
type By = (typeof BY)[number];

export const COSTS_COMMAND: CommandSpec = {
  name: "costs",
  summary: "Cost per completed task, waste, resume savings and breakdowns (the /costs rollups).",
  flags: {
    since: {
      type: "string",
      value: "<date|Nd>",
      description: "tasks launched on or after this UTC day (YYYY-MM-DD), or in the last N days (e.g. 7d); every date is the task's launch day",
      check: (value) => parseTimeFlag({ flag: "since", value, accept: "day" }).problem ?? null,
    },
    until: {
      type: "string",
      value: "<date|Nd>",
      description: "tasks launched on or before this UTC day (YYYY-MM-DD), or N days ago (e.g. 7d)",
      check: (value) => parseTimeFlag({ flag: "until", value, accept: "day" }).problem ?? null,
    },
    by: { type: "string", value: "<dimension>", description: "breakdown to print (default profile)", choices: BY },
    profile: { type: "string", value: "<name>", description: "only this agent profile" },
    model: { type: "string", value: "<name>", description: "only this model" },
    outcome: { type: "string", value: "<outcome>", description: "only tasks with this outcome", choices: COST_OUTCOMES },
  },
  examples: ["npm run cli -- costs --since 30d --by week", "npm run cli -- costs --by model --profile scripted"],
};

/**
 * `--since` as a UTC day: a YYYY-MM-DD date as given, or `Nd` = N days before `now` (1–3650); the
 * shared parser of scripts/lib/cli-dates.ts.
 * @throws UsageError naming --since and the accepted forms.
 */
export function parseSince(value: string, now = new Date()): string {
  const r = parseTimeFlag({ flag: "since", value, accept: "day", now });
  if (r.problem !== undefined) throw new UsageError([r.problem], "costs");
  return r.value;
}

const r6 = (x: number | null) => (x === null ? null : Number(x.toFixed(6)));

/** Runs `costs`: fetches the rollup, prints the chosen breakdown to stderr, returns the JSON line's object. */
export async function runCosts(api: TRPCClient<AppRouter>, values: FlagValues): Promise<unknown> {
  const by = (values.by as By | undefined) ?? "profile";
  // Every problem of the dates at once (README: "naming the flag and its limit").
  const since = typeof values.since === "string" ? parseTimeFlag({ flag: "since", value: values.since, accept: "day" }) : undefined;
  const until = typeof values.until === "string" ? parseTimeFlag({ flag: "until", value: values.until, accept: "day" }) : undefined;
  const problems = [since?.problem, until?.problem].filter((p) => p !== undefined);
  const order = problems.length ? null : sinceUntilProblem(since?.value, until?.value);
  if (order) problems.push(order);
  if (problems.length) throw new UsageError(problems, "costs");
  const input = {
    from: since?.value,
    to: until?.value,
    profile: values.profile as string | undefined,
    model: values.model as string | undefined,
    outcome: values.outcome as (typeof COST_OUTCOMES)[number] | undefined,
    bucket: by === "week" ? ("week" as const) : ("day" as const),
  };
  const r = await api.cost.rollup.query(input);
  const groups = { profile: r.byProfile, model: r.byModel, week: r.byPeriod, day: r.byPeriod, outcome: r.byOutcome, failure: r.byFailureClass }[by];
  const h = r.headline;
  const star = h.estimatedUsd > 0 ? "*" : "";
  process.stderr.write(
    `${h.tasks} tasks, ${h.completed} completed (${h.completionRate === null ? "—" : Math.round(h.completionRate * 100)}%) · spend $${h.usd.toFixed(4)}${star} · ` +
      `cost per completed task ${h.costPerCompletedUsd === null ? "—" : `$${h.costPerCompletedUsd.toFixed(4)}${star}`} · waste ${h.wasteShare === null ? "—" : Math.round(h.wasteShare * 100)}% · ` +
      `resume savings $${h.resume.savedUsd.toFixed(4)}\n`,
  );
  process.stderr.write(
    `dates: tasks by ${r.dateBasis} · price table${h.priceVersions.length > 1 ? (h.mixedPrices ? "s (MIXED: the sums add dollars priced differently)" : "s (same prices)") : ""}: ${h.priceVersions.join(", ") || "—"}\n`,
  );
  process.stderr.write(
    `${by.padEnd(24)} ${"tasks".padStart(6)} ${"done".padStart(6)} ${"spend".padStart(12)} ${"waste".padStart(10)} ${"per done".padStart(12)}\n`,
  );
  for (const g of groups) {
    const e = g.estimatedUsd > 0 ? "*" : "";
    process.stderr.write(
      `${terminalSafe(g.key.slice(0, 24)).padEnd(24)} ${String(g.tasks).padStart(6)} ${String(g.completed).padStart(6)} ${`$${g.usd.toFixed(4)}${e}`.padStart(12)} ${`$${g.wasteUsd.toFixed(4)}`.padStart(10)} ${(g.costPerCompletedUsd === null ? "—" : `$${g.costPerCompletedUsd.toFixed(4)}${e}`).padStart(12)}\n`,
    );
  }
  if (star)
    process.stderr.write(`* includes $${h.estimatedUsd.toFixed(4)} on ${h.estimatedCalls} calls with estimated tokens (the provider reported no usage)\n`);
  return {
    filters: r.filters,
    dateBasis: r.dateBasis,
    headline: {
      tasks: h.tasks,
      completed: h.completed,
      completionRate: r6(h.completionRate),
      usd: r6(h.usd),
      costPerCompletedUsd: r6(h.costPerCompletedUsd),
      stepsMedian: h.stepsMedian,
      stepsP90: h.stepsP90,
      wasteShare: r6(h.wasteShare),
      productiveUsd: r6(h.productiveUsd),
      overheadUsd: r6(h.overheadUsd),
      wasteUsd: r6(h.wasteUsd),
      estimatedUsd: r6(h.estimatedUsd),
      resume: {
        tasks: h.resume.tasks,
        savedUsd: r6(h.resume.savedUsd),
        restartCostUsd: r6(h.resume.restartCostUsd),
        resumeCostUsd: r6(h.resume.resumeCostUsd),
      },
      priceVersions: h.priceVersions,
    },
    by,
    rows: groups.map((g) => ({
      key: g.key,
      tasks: g.tasks,
      completed: g.completed,
      usd: r6(g.usd),
      productiveUsd: r6(g.productiveUsd),
      overheadUsd: r6(g.overheadUsd),
      wasteUsd: r6(g.wasteUsd),
      costPerCompletedUsd: r6(g.costPerCompletedUsd),
      estimated: g.estimatedUsd > 0,
      priceVersions: g.priceVersions,
    })),
    queryMs: r.queryMs,
  };
}

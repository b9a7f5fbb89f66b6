/**
 * `npm run cli -- eval <run|report|cancel|list|apply> …`: eval suites and runs through the API
 * (`eval.*` procedures). Human progress on stderr; the last stdout line is JSON (printed by
 * scripts/cli.ts). `eval run --wait` with a gate (`--min-pass-rate`, `--no-regression-from`) exits
 * with EXIT_CODES.gateFailed when a gate fails, for CI.
 */
import { existsSync, readFileSync } from "node:fs";
import type { TRPCClient } from "@trpc/client";
import type { AppRouter } from "../../server/api/root.ts";
import type { EvalRunReport } from "../../server/db/eval-repository.ts";
import { NOT_JUDGED_RULE } from "../../lib/contracts/eval.ts";
import type { EvalProfileReport } from "../../server/domain/eval-report.ts";
import { parseEvalSuite } from "../../server/domain/parse-eval-suite.ts";
import { UsageError, type CommandSpec, type FlagValues } from "./cli-args.ts";
import { terminalSafe } from "./cli-text.ts";

const P = "npm run cli --";

export const EVAL_COMMANDS: readonly CommandSpec[] = [
  {
    name: "eval run",
    summary: "Run an eval: a suite (a file to apply first, or a suite's name) × profiles × repeats.",
    positionals: [{ name: "suite", description: "a suite file (YAML or JSON) or the name of an applied suite" }],
    flags: {
      profiles: { type: "string", value: "<a,b>", description: "agent profiles to compare (comma-separated)" },
      repeats: { type: "string", value: "<n>", description: "repeats of each case per profile (default 1)", int: { min: 1, max: 20 } },
      concurrency: { type: "string", value: "<n>", description: "cells running at once (default 4)", int: { min: 1, max: 50 } },
      "on-escalation": {
        type: "string",
        value: "<fail|wait>",
        description: "an escalation in a cell: fail it (default) or wait for a human",
        choices: ["fail", "wait"],
      },
      wait: { type: "boolean", description: "wait until every cell has ended, printing progress to stderr" },
      "min-pass-rate": { type: "string", value: "<0..1>", description: "gate (with --wait): every profile's pass rate at least this" },
      "no-regression-from": { type: "string", value: "<evalRunId>", description: "gate (with --wait): no case × profile passes less often than in that run" },
    },
    examples: [
      `${P} eval run examples/evals/license-audit.yaml --profiles scripted,scripted-sloppy --repeats 3 --wait`,
      `${P} eval run license-audit --profiles scripted --wait --min-pass-rate 0.9`,
    ],
  },
  {
    name: "eval report",
    summary: "An eval run's report: per-profile figures (and with --compare-to, what regressed and improved).",
    positionals: [{ name: "evalRunId", description: "the eval run's id" }],
    flags: {
      "compare-to": { type: "string", value: "<evalRunId>", description: "an earlier eval run to compare with" },
      format: {
        type: "string",
        value: "<summary|csv|json>",
        description: "summary (default), or the cells as CSV / JSON on stdout",
        choices: ["summary", "csv", "json"],
      },
    },
    examples: [`${P} eval report evalrun_01jx…`, `${P} eval report evalrun_01jx… --format csv > cells.csv`],
  },
  {
    name: "eval cancel",
    summary: "Cancel an eval run (running cells' tasks are cancelled).",
    positionals: [{ name: "evalRunId", description: "the eval run's id" }],
    examples: [`${P} eval cancel evalrun_01jx…`],
  },
  { name: "eval list", summary: "List eval suites, their cases and latest runs.", examples: [`${P} eval list`] },
  {
    name: "eval apply",
    summary: "Create or update a suite from a file (YAML or JSON).",
    positionals: [{ name: "file", description: "the suite file" }],
    examples: [`${P} eval apply examples/evals/license-audit.yaml`],
  },
];

/** The per-profile part of the JSON line. */
function profileLine(p: EvalProfileReport) {
  return {
    profile: p.profile,
    cells: p.cells,
    judged: p.judged,
    notJudged: p.notJudged,
    passRate: p.passRate,
    passRateLow: p.passRateLow,
    passRateHigh: p.passRateHigh,
    completionRate: p.completionRate,
    passHatK: p.passHatK,
    stepsP50: p.stepsP50,
    stepsP90: p.stepsP90,
    costPerPassUsd: p.costPerPassUsd,
    costPerCompletedUsd: p.costPerCompletedUsd,
    wasteShare: p.wasteShare,
    failureClasses: p.failureClasses,
  };
}

/** A failed gate, in words. */
export interface GateFailure {
  gate: "min-pass-rate" | "no-regression-from";
  message: string;
}

/**
 * The gates of `eval run --wait`: `minPassRate` (each profile's pass rate ≥ it; a profile with no
 * judged cell fails, and so does one with cells not judged — the judge could not answer, so the
 * rate was not verified: a CI gate fails closed) and `regressions` (the diff against the `--no-regression-from` run: any case ×
 * profile that regressed fails). Pure.
 */
export function evalGateFailures(report: Pick<EvalRunReport, "report" | "diff">, gates: { minPassRate?: number; noRegression?: boolean }): GateFailure[] {
  const out: GateFailure[] = [];
  if (gates.minPassRate !== undefined)
    for (const p of report.report)
      if (p.passRate === null || p.passRate < gates.minPassRate)
        out.push({ gate: "min-pass-rate", message: `${p.profile}: pass rate ${p.passRate ?? "n/a"} < ${gates.minPassRate}` });
      else if (p.notJudged > 0)
        out.push({
          gate: "min-pass-rate",
          message: `${p.profile}: ${p.notJudged} of ${p.ended} cells not judged (the judge could not answer); the pass rate ${p.passRate} covers the ${p.judged} judged`,
        });
  if (gates.noRegression)
    for (const d of report.diff ?? [])
      if (d.change === "regressed")
        out.push({ gate: "no-regression-from", message: `${d.caseKey} × ${d.profile}: passed ${d.base} of repeats before, ${d.current} now` });
  return out;
}

function parseRate(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || !/^\d*\.?\d+$/.test(raw) || !(n >= 0 && n <= 1))
    throw new UsageError([`--min-pass-rate: a number between 0 and 1, got ${JSON.stringify(raw)}`], "eval run");
  return n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs one `eval …` command. Returns the JSON line's object and, for `eval run` with failed gates,
 * `gateFailed: true` (scripts/cli/features.ts maps it to EXIT_CODES.gateFailed); for `eval report
 * --format csv|json`, `raw`: the export's text, which scripts/cli.ts prints as stdout instead of a
 * JSON line. `poll` wraps each request of `eval run --wait`'s loop (the CLI passes cli-wait.ts
 * rideOut, so the wait rides out a restart of the web app or its database and the gate still gets
 * its verdict).
 * @throws UsageError for bad flags; API errors as the client raises them.
 */
export async function runEval(
  api: TRPCClient<AppRouter>,
  command: string,
  values: FlagValues,
  positionals: readonly string[],
  poll: <T>(call: () => Promise<T>, goesOn: string) => Promise<T> = (call) => call(),
): Promise<{ out: unknown; gateFailed?: boolean; raw?: string }> {
  switch (command) {
    case "eval list":
      return { out: { suites: await api.eval.list.query() } };
    case "eval apply": {
      const file = positionals[0]!;
      const parsed = parseEvalSuite({ text: readFileSync(file, "utf8"), source: file });
      return { out: await api.eval.applySuite.mutate(parsed) };
    }
    case "eval cancel":
      return { out: await api.eval.cancel.mutate({ evalRunId: positionals[0]! }) };
    case "eval report": {
      const evalRunId = positionals[0]!;
      const format = (values.format as string | undefined) ?? "summary";
      if (format !== "summary") {
        // The export itself is stdout (`> cells.csv`), not a JSON line wrapping it.
        const { content } = await api.eval.export.query({ evalRunId, format: format as "csv" | "json" });
        return { out: null, raw: format === "json" ? `${content}\n` : content };
      }
      const compareTo = values["compare-to"] as string | undefined;
      const r = await api.eval.report.query({ evalRunId, ...(compareTo ? { compareTo } : {}) });
      printReport(r);
      return {
        out: {
          evalRunId: r.evalRunId,
          suite: r.suite,
          status: r.status,
          profiles: r.report.map(profileLine),
          ...(r.diff ? { diff: r.diff.filter((d) => d.change !== "same") } : {}),
        },
      };
    }
    case "eval run": {
      const target = positionals[0]!;
      const profiles =
        typeof values.profiles === "string"
          ? values.profiles
              .split(",")
              .map((p) => p.trim())
              .filter(Boolean)
          : [];
      if (!profiles.length) throw new UsageError(["--profiles: required, e.g. --profiles scripted,scripted-sloppy"], "eval run");
      const minPassRate = parseRate(values["min-pass-rate"]);
      const base = values["no-regression-from"] as string | undefined;
      if ((minPassRate !== undefined || base) && !values.wait) throw new UsageError(["--min-pass-rate / --no-regression-from: gates need --wait"], "eval run");
      let suite = target;
      if (existsSync(target)) {
        const parsed = parseEvalSuite({ text: readFileSync(target, "utf8"), source: target });
        const applied = await api.eval.applySuite.mutate(parsed);
        process.stderr.write(`applied suite ${terminalSafe(applied.name)} (${applied.cases} cases)\n`);
        suite = applied.name;
      }
      const started = await api.eval.start.mutate({
        suite,
        profiles,
        ...(values.repeats !== undefined ? { repeats: values.repeats as number } : {}),
        ...(values.concurrency !== undefined ? { concurrency: values.concurrency as number } : {}),
        ...(values["on-escalation"] ? { onEscalation: values["on-escalation"] as "fail" | "wait" } : {}),
      });
      process.stderr.write(`eval run ${started.evalRunId}: ${started.cells} cells\n`);
      if (!values.wait) return { out: { evalRunId: started.evalRunId, suite, cells: started.cells, status: "running" } };
      let r: EvalRunReport;
      let last = "";
      for (;;) {
        r = await poll(() => api.eval.report.query({ evalRunId: started.evalRunId, ...(base ? { compareTo: base } : {}) }), "the eval run goes on");
        const ended = r.report.reduce((s, p) => s + p.ended, 0);
        const line = `${ended}/${r.cells.length} cells ended`;
        if (line !== last) process.stderr.write(`${line}\n`);
        last = line;
        if (r.status !== "running") break;
        await sleep(1_000);
      }
      printReport(r);
      const failures = evalGateFailures(r, { ...(minPassRate !== undefined ? { minPassRate } : {}), noRegression: Boolean(base) });
      for (const f of failures) process.stderr.write(`gate failed (${f.gate}): ${terminalSafe(f.message)}\n`);
      return {
        out: {
          evalRunId: r.evalRunId,
          suite: r.suite,
          status: r.status,
          profiles: r.report.map(profileLine),
          gates: { failed: failures.map((f) => f.message) },
        },
        gateFailed: failures.length > 0,
      };
    }
    default:
      throw new UsageError([`"${command}": unknown eval command`], null);
  }
}

function printReport(r: EvalRunReport): void {
  const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(0)}%`);
  const usd = (x: number | null) => (x === null ? "—" : x.toFixed(4));
  process.stderr.write(`suite ${terminalSafe(r.suite)} · eval run ${r.evalRunId} · ${r.status}\n`);
  for (const p of r.report)
    process.stderr.write(
      `  ${terminalSafe(p.profile).padEnd(20)} pass ${pct(p.passRate)} (${pct(p.passRateLow)}–${pct(p.passRateHigh)})${p.notJudged ? ` of ${p.judged} judged, ${p.notJudged} not judged (judge unavailable)` : ""} pass^k ${pct(p.passHatK)} completed ${pct(p.completionRate)} ` +
        `steps p50 ${p.stepsP50 ?? "—"} p90 ${p.stepsP90 ?? "—"} USD/pass ${usd(p.costPerPassUsd)} USD/completed ${usd(p.costPerCompletedUsd)}` +
        `${
          Object.keys(p.failureClasses).length
            ? ` failures ${Object.entries(p.failureClasses)
                .map(([k, v]) => `${k}:${v}`)
                .join(" ")}`
            : ""
        }\n`,
    );
  if (r.report.some((p) => p.notJudged > 0)) process.stderr.write(`  (pass rate: ${NOT_JUDGED_RULE})\n`);
}

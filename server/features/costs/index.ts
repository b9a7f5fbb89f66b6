/**
 * Costs: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-costs).
 * Re-exports only, by name; its map and its playbooks are in README.md beside it.
 */
export { modelCallCostUsd, priceModelCall, PRICE_PACKAGE_VERSION, PRICE_TABLE_VERSION } from "../../domain/cost.ts";
export type { ProfilePrices, PricedUsage } from "../../domain/cost.ts";
export { costSideOf, correctedEarlierCause, COST_CAUSES, WASTE_CAUSES, OVERHEAD_CAUSES } from "../../domain/cost-causes.ts";
export type { CostCause } from "../../domain/cost-causes.ts";
export {
  outcomeOf,
  failureClassOf,
  reportedFailureClass,
  formatUsd,
  outcomeTableCells,
  toCsv,
  neutraliseFormula,
  csvNumber,
  outcomeCsvCells,
  outcomeTableCsv,
  priceVersionsOf,
  percentileOfHistogram,
  taskCostCsv,
  pricesDiffer,
  COST_OUTCOMES,
  COMPLETED_OUTCOMES,
  FAILURE_CLASSES,
  COST_ROLLUP_FAILURES,
  COST_DATE_BASIS,
  costFiltersSchema,
  OUTCOME_TABLE_HEADER,
  OUTCOME_CSV_HEADER,
  TASK_CSV_HEADER,
} from "../../domain/cost-rollup.ts";
export type { CostOutcome, FailureClass, CostFilters, CostGroup, OutcomeRow, TaskCostRow } from "../../domain/cost-rollup.ts";
export { recordModelCall, correctCausesOnResume, taskCostTotals, taskSpend, taskRunCosts } from "../../db/cost-repository.ts";
export type { TaskCostTotals, WasteSplit, RunCostSplit } from "../../db/cost-repository.ts";
export { explainCostRollup, costRollup, taskCostRows, costByTemplate, costByCase, TASK_CSV_MAX_ROWS } from "../../db/cost-queries.ts";
export type { CostRollup, CostTemplateGroup } from "../../db/cost-queries.ts";

/**
 * Templates: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-templates).
 * Re-exports only, by name; its map and its playbooks are in README.md beside it.
 */
export {
  parseTemplateLaunch,
  templateLaunchFromTask,
  templateLaunchFromEvalCase,
  evalCaseLaunchFromTemplate,
  launchFromTemplate,
  templateLaunchWithHistory,
  templateHistory,
  templateNameSchema,
} from "../../domain/launch-template.ts";
export type { TemplateLaunch, TaskShape, TemplateHistory } from "../../domain/launch-template.ts";
export {
  suggestBudgets,
  budgetsFromHistory,
  budgetBasisOf,
  parseBudgetBasis,
  historyCeilingNote,
  BUDGET_HEADROOM,
  MIN_BUDGET_SAMPLES,
  budgetBasisSchema,
} from "../../domain/budget-from-history.ts";
export type { PassingRun, BudgetSuggestion, GivenBudgets, BudgetBasis } from "../../domain/budget-from-history.ts";
export {
  createTemplateFromTask,
  createTemplate,
  createTemplateFromEvalCase,
  evalCaseFromTemplate,
  updateTemplate,
  archiveTemplate,
  listTemplates,
  readTemplateHistory,
  launchTemplate,
} from "../../db/template-repository.ts";
export type { LaunchTemplateRow } from "../../db/template-repository.ts";

/**
 * Where a task comes from, for the task list's "Eval cells" filter: `production` (launched by a
 * person, a script or a template), `eval` (a cell of an eval run: the same kind of task, run to
 * compare profiles) or `all`. The list shows production tasks by default: an operator watching
 * production expects the list to be theirs, and an eval run of 3 profiles × 20 cases × 3 repeats would
 * otherwise bury it under 180 rows that need nothing from them. The filter beside the others shows
 * them, each marked with a chip naming its eval run (linking it). The API's own default is `all` (a
 * script listing tasks gets every task, as before; the CLI's `list` marks the eval cells). Client-safe, pure.
 */
export const TASK_ORIGINS = ["production", "eval", "all"] as const;
export type TaskOrigin = (typeof TASK_ORIGINS)[number];

/** The task list page's default: production tasks only (eval cells hidden, their count said). */
export const LIST_DEFAULT_ORIGIN: TaskOrigin = "production";

/** The filter's choices in the list's words. */
export const ORIGIN_OPTIONS = [
  ["production", "Production tasks"],
  ["eval", "Eval cells only"],
  ["all", "Production and eval cells"],
] as const satisfies readonly (readonly [TaskOrigin, string])[];

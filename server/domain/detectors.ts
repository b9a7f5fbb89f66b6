import canonicalize from "canonicalize";
import type { StepKind } from "../../lib/contracts/status.ts";

/**
 * Detectors (docs/ARCHITECTURE.md "How a run works", step 4): pure functions over the step history of a run
 * that say when the orchestrator should warn or stop and escalate to a human. No I/O, no clock, no
 * framework: the agent loop records steps, calls `detectAlerts` after each step and acts on what the
 * latest step raised (a `critical` alert with `escalate: true` → checkpoint, open an escalation, wait).
 *
 * Windows and resumes: every history detector takes `sinceStepIndex` (index into `steps`, default 0).
 * Steps before it are only used as a baseline (the working-set size the window starts from); stall and
 * loop counting start at it. The agent loop (agent-loop/fold.ts `withDetectors`) passes the current
 * segment's history only, with no index: the loop's state starts every segment with an empty history,
 * so the stall and loop windows restart at each segment — after an answered escalation, a resume, and
 * a checkpoint that cuts the run — and a human's "carry on" is not re-escalated by the same evidence.
 * A caller with the whole run can pass it with an index instead; the baseline is then the facts
 * recorded before the index.
 */

/** One recorded step of a run, as plain data. */
export interface StepRecord {
  /** Deterministic step id ("model-12", "tool-12-0"). */
  stepId: string;
  kind: StepKind;
  /** Tool name (tool steps). */
  tool?: string;
  /** Tool-call arguments exactly as the model produced them (a JSON text, or anything when malformed). */
  rawArguments?: string;
  /** Whether the step succeeded (tool steps). */
  ok?: boolean;
  /** The tool error's code when it failed (server/tools/types.ts ToolErrorCode, e.g. "invalid_json"). */
  errorCode?: string;
  /** Number of facts in the working set after the step. */
  factsAfter: number;
  /** Prompt + completion tokens of the step (model steps). */
  tokens?: number;
  /** The agent's open question after the step, when it stated one. */
  openQuestion?: string;
}

export type AlertKind = "stall" | "loop" | "tool_failure" | "budget" | "saturation" | "dead_end" | "drift" | "error";
/** Alert.severity: `critical` alerts are the ones that may escalate. Also a CHECK constraint on the column (migration status_checks). */
export const ALERT_SEVERITIES = ["info", "warning", "critical"] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** What a detector raises. `stepId` = the step that raised it; `evidence.stepIds` = the steps it rests on. */
export interface Alert {
  kind: AlertKind;
  severity: AlertSeverity;
  stepId: string;
  message: string;
  evidence: { stepIds: string[]; [key: string]: unknown };
  /** True → the loop must not continue: checkpoint, open an escalation and wait for a human. */
  escalate: boolean;
}

/**
 * Detector thresholds; every field optional, defaults in DEFAULT_THRESHOLDS. What a profile sets
 * (server/inngest/loop-config.ts): `stallSteps`, `graceSteps` (the profile's `stallGraceSteps`) and
 * `repeatableTools` (the profile's built-in tools that declare themselves repeatable); the other
 * fields are the defaults for every run.
 */
export interface DetectorThresholds {
  /** Counted steps without working-set growth before a stall warning. */
  stallSteps: number;
  /** Further flat counted steps after the warning before a critical, escalating stall. */
  graceSteps: number;
  /** Tools whose identical repeats are legitimate (never a loop). */
  repeatableTools: string[];
  /** Fraction of a ceiling at which a budget warning is raised. */
  budgetWarnRatio: number;
  /** Drift score (0–1) below which the open question is considered off-goal. */
  driftThreshold: number;
  /** Consecutive malformed tool calls (see `detectToolFailures`) before escalating. */
  toolFailureSteps: number;
}

/**
 * Defaults and their sources:
 * - stallSteps 5: docs/ARCHITECTURE.md "How a run works", step 4: no new fact in 5 steps is a stall.
 * - graceSteps 3: our choice — a model turn with 2 tool calls is 3 counted steps, so the agent gets
 *   one more full turn after the warning to record something before a human is called.
 * - repeatableTools []: every tool is presumed non-repeatable; a built-in tool opts itself in with its
 *   `repeatable` declaration (server/tools, docs/ARCHITECTURE.md "Idempotency"); MCP tools never do.
 * - budgetWarnRatio 0.8: warn with a fifth of a ceiling left, time enough for a person to raise it
 *   before the hard stop at 100 % (docs/ARCHITECTURE.md "How a run works", step 4).
 * - driftThreshold 0.15: see `driftScore`.
 * - toolFailureSteps 3: our choice, in step with the loop's "3rd time": the model was told what was
 *   wrong twice (the error names the field and the limit) and still cannot form a valid call.
 */
export const DEFAULT_THRESHOLDS: DetectorThresholds = {
  stallSteps: 5,
  graceSteps: 3,
  repeatableTools: [],
  budgetWarnRatio: 0.8,
  driftThreshold: 0.15,
  toolFailureSteps: 3,
};

/** Model and tool steps are the agent's work; checkpoints and human steps are the orchestrator's. */
function isCounted(step: StepRecord): boolean {
  return step.kind === "model" || step.kind === "tool";
}

// ---------------------------------------------------------------------------------------------------
// Progress / stall

/**
 * Stall: the working set has not grown for `stallSteps` counted (model + tool) steps while the agent
 * keeps working. Progress is measured in facts, not words: prose without new facts is a stall; many
 * calls of one tool with different arguments that add facts is progress.
 *
 * "Grown" = `factsAfter` exceeds the window's high-water mark (the largest working-set size seen so
 * far, starting from the size after the step before `sinceStepIndex`, or 0). Deleting a fact and
 * re-adding one is therefore not progress.
 *
 * Raises, at the counted step where the flat run reaches the count:
 * - `stallSteps` flat steps → `stall` warning, escalate false;
 * - `stallSteps + graceSteps` flat steps → `stall` critical, escalate true.
 * Nothing further is raised for the same flat run (the loop has stopped to escalate); a resume
 * restarts the window through `sinceStepIndex`. Checkpoint and human steps neither count nor reset.
 *
 * Returns every stall alert of the window, oldest first (`detectAlerts` keeps the latest step's).
 */
export function detectStall({
  steps,
  sinceStepIndex = 0,
  stallSteps = DEFAULT_THRESHOLDS.stallSteps,
  graceSteps = DEFAULT_THRESHOLDS.graceSteps,
}: {
  steps: readonly StepRecord[];
  sinceStepIndex?: number;
  stallSteps?: number;
  graceSteps?: number;
}): Alert[] {
  const alerts: Alert[] = [];
  const start = Math.max(0, sinceStepIndex);
  let highWater = start > 0 ? (steps[start - 1]?.factsAfter ?? 0) : 0;
  let flat: string[] = [];
  for (let i = start; i < steps.length; i++) {
    const step = steps[i]!;
    if (!isCounted(step)) continue;
    if (step.factsAfter > highWater) {
      highWater = step.factsAfter;
      flat = [];
      continue;
    }
    flat.push(step.stepId);
    const evidence = { stepIds: [...flat], flatSteps: flat.length, workingSetSize: highWater };
    if (flat.length === stallSteps) {
      alerts.push({
        kind: "stall",
        severity: "warning",
        stepId: step.stepId,
        message: `No new facts in the last ${flat.length} steps (working set stays at ${highWater}).`,
        evidence,
        escalate: false,
      });
    } else if (flat.length === stallSteps + graceSteps) {
      alerts.push({
        kind: "stall",
        severity: "critical",
        stepId: step.stepId,
        message: `Stalled: no new facts in ${flat.length} steps (working set stays at ${highWater}); escalating.`,
        evidence,
        escalate: true,
      });
    }
  }
  return alerts;
}

// ---------------------------------------------------------------------------------------------------
// Repeated tool calls

/**
 * Canonical form of tool-call arguments, for comparing calls: JSON text → RFC 8785 canonical JSON
 * (package `canonicalize`, the same canonicalisation the side-effect ledger fingerprints with — not
 * imported from server/tools/ledger.ts because that module pulls in the database client): key order,
 * whitespace and number spelling (`1.0`, `1`, `1e0`) do not matter. Anything that does not parse as
 * JSON compares as its trimmed raw text. The two forms are prefixed so they never collide.
 */
export function canonicalArguments(rawArguments: string | undefined): string {
  const raw = (rawArguments ?? "").trim();
  try {
    const text = canonicalize(JSON.parse(raw) as unknown);
    if (text !== undefined) return `json:${text}`;
  } catch {
    // not JSON: compared as text below
  }
  return `raw:${raw}`;
}

/**
 * Loop: the same tool with canonically equal arguments (see `canonicalArguments`) within the window.
 * The 2nd occurrence → `loop` warning (escalate false); the 3rd and any later one → `loop` critical
 * (escalate true) (docs/ARCHITECTURE.md "How a run works", step 4: a second time is a warning, a third a loop).
 *
 * Failed calls count too: repeating a call that failed, unchanged, is the classic loop. Tools in
 * `repeatableTools` never raise. Paging (`list_files` with a different offset) is not a repeat anyway.
 * `sinceStepIndex`: calls before it are not counted (the window restarts after an escalation).
 *
 * Returns every loop alert of the window, oldest first.
 */
export function detectRepeatedCalls({
  steps,
  sinceStepIndex = 0,
  repeatableTools = DEFAULT_THRESHOLDS.repeatableTools,
}: {
  steps: readonly StepRecord[];
  sinceStepIndex?: number;
  repeatableTools?: readonly string[];
}): Alert[] {
  const alerts: Alert[] = [];
  const seen = new Map<string, string[]>();
  for (let i = Math.max(0, sinceStepIndex); i < steps.length; i++) {
    const step = steps[i]!;
    if (step.kind !== "tool" || step.tool === undefined || repeatableTools.includes(step.tool)) continue;
    const key = `${step.tool}\n${canonicalArguments(step.rawArguments)}`;
    const ids = [...(seen.get(key) ?? []), step.stepId];
    seen.set(key, ids);
    if (ids.length < 2) continue;
    const critical = ids.length >= 3;
    alerts.push({
      kind: "loop",
      severity: critical ? "critical" : "warning",
      stepId: step.stepId,
      message: critical
        ? `Loop: ${step.tool} called ${ids.length} times with identical arguments; escalating.`
        : `${step.tool} called a 2nd time with identical arguments.`,
      evidence: { stepIds: ids, tool: step.tool, occurrences: ids.length },
      escalate: critical,
    });
  }
  return alerts;
}

// ---------------------------------------------------------------------------------------------------
// Tool failures

/**
 * Error codes that say the model could not form a valid call (server/tools/registry.ts gateway), as
 * opposed to an honest miss while exploring (`not_found`, `not_a_file`…), which is normal work.
 */
export const MALFORMED_CALL_CODES: readonly string[] = ["unknown_tool", "invalid_json", "invalid_arguments"];

/**
 * Tool failure: `toolFailureSteps` consecutive tool calls (model steps in between do not interrupt;
 * any successful or honestly failing tool call does) were malformed (`MALFORMED_CALL_CODES`), whatever
 * their arguments — a model that keeps getting a schema wrong in varying ways is not caught by the
 * loop detector (its arguments differ) and only late by the stall detector. One less than the
 * threshold → warning; the threshold → critical with escalate true. Returns every alert of the
 * window, oldest first.
 */
export function detectToolFailures({
  steps,
  sinceStepIndex = 0,
  toolFailureSteps = DEFAULT_THRESHOLDS.toolFailureSteps,
}: {
  steps: readonly StepRecord[];
  sinceStepIndex?: number;
  toolFailureSteps?: number;
}): Alert[] {
  const alerts: Alert[] = [];
  let streak: StepRecord[] = [];
  for (let i = Math.max(0, sinceStepIndex); i < steps.length; i++) {
    const step = steps[i]!;
    if (step.kind !== "tool") continue;
    if (step.ok !== false || !MALFORMED_CALL_CODES.includes(step.errorCode ?? "")) {
      streak = [];
      continue;
    }
    streak.push(step);
    const n = streak.length;
    if (n < Math.max(1, toolFailureSteps - 1)) continue;
    const critical = n >= toolFailureSteps;
    const codes = [...new Set(streak.map((s) => s.errorCode))].join(", ");
    alerts.push({
      kind: "tool_failure",
      severity: critical ? "critical" : "warning",
      stepId: step.stepId,
      message: critical ? `Tool failure: the last ${n} tool calls were malformed (${codes}); escalating.` : `${n} malformed tool calls in a row (${codes}).`,
      evidence: { stepIds: streak.map((s) => s.stepId), tools: [...new Set(streak.map((s) => s.tool))], codes: streak.map((s) => s.errorCode) },
      escalate: critical,
    });
  }
  return alerts;
}

// ---------------------------------------------------------------------------------------------------
// Budgets

/** Usage against the hard ceilings of a task. A null budget = no ceiling. Cost in USD (computed elsewhere). */
export interface BudgetUsage {
  stepsUsed: number;
  stepBudget: number | null;
  tokensUsed: number;
  tokenBudget: number | null;
  costUsd: number;
  costBudgetUsd: number | null;
}

type BudgetLevel = 0 | 1 | 2;

function budgetLevels(
  usage: BudgetUsage,
  warnRatio: number,
): { name: "steps" | "tokens" | "cost"; used: number; limit: number; ratio: number; level: BudgetLevel }[] {
  const ceilings = [
    { name: "steps" as const, used: usage.stepsUsed, limit: usage.stepBudget },
    { name: "tokens" as const, used: usage.tokensUsed, limit: usage.tokenBudget },
    { name: "cost" as const, used: usage.costUsd, limit: usage.costBudgetUsd },
  ];
  return ceilings
    .filter((c): c is typeof c & { limit: number } => c.limit !== null && c.limit > 0)
    .map((c) => {
      const ratio = c.used / c.limit;
      const level: BudgetLevel = ratio >= 1 ? 2 : ratio >= warnRatio ? 1 : 0;
      return { ...c, ratio, level };
    });
}

/**
 * Budget alert for the step, task token and dollar ceilings (docs/ARCHITECTURE.md "How a run works",
 * step 4: a ceiling is checked before every step). Per ceiling: used/limit ≥ `warnRatio` (default 0.8) → warning; ≥ 1 (reached) →
 * critical with escalate true. Returns the single most severe alert (evidence lists every ceiling at
 * or above the warning level with `used`, `limit`, `ratio`), or null.
 *
 * `previous` (usage before the latest step): when given, an alert is raised only when some ceiling
 * crossed into a higher level with this step, so a run sitting at 85 % is warned once, not every step.
 * Without it the alert reflects the current level on every call. Null or ≤ 0 budgets are ignored.
 */
export function budgetAlert({
  stepsUsed,
  stepBudget,
  tokensUsed,
  tokenBudget,
  costUsd,
  costBudgetUsd,
  previous,
  stepId = "",
  warnRatio = DEFAULT_THRESHOLDS.budgetWarnRatio,
}: BudgetUsage & {
  previous?: Pick<BudgetUsage, "stepsUsed" | "tokensUsed" | "costUsd">;
  stepId?: string;
  warnRatio?: number;
}): Alert | null {
  const usage = { stepsUsed, stepBudget, tokensUsed, tokenBudget, costUsd, costBudgetUsd };
  const now = budgetLevels(usage, warnRatio);
  const before = previous ? budgetLevels({ ...usage, ...previous }, warnRatio) : null;
  const raised = now.filter((c) => c.level > 0 && (before === null || c.level > (before.find((b) => b.name === c.name)?.level ?? 0)));
  if (raised.length === 0) return null;
  const hot = now.filter((c) => c.level > 0).sort((a, b) => b.ratio - a.ratio);
  const worst = hot[0]!;
  const critical = worst.level === 2;
  const describe = (c: (typeof hot)[number]): string =>
    c.name === "cost" ? `$${c.used.toFixed(2)} of $${c.limit.toFixed(2)}` : `${c.used} of ${c.limit} ${c.name}`;
  return {
    kind: "budget",
    severity: critical ? "critical" : "warning",
    stepId,
    message: critical
      ? `Budget reached: ${describe(worst)} (${Math.round(worst.ratio * 100)} %); escalating.`
      : `Budget at ${Math.floor(worst.ratio * 100)} %: ${describe(worst)}.`,
    evidence: {
      stepIds: stepId ? [stepId] : [],
      ceilings: hot.map(({ name, used, limit, ratio }) => ({ name, used, limit, ratio })),
    },
    escalate: critical,
  };
}

// ---------------------------------------------------------------------------------------------------
// Drift

const STOP_WORDS = new Set(
  (
    "a about above after again against all also am an and any are as at be been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers him his how " +
    "i if in into is it its itself just me more most my no nor not now of off on once only or other our ours out over own " +
    "same she should so some such than that the their theirs them then there these they this those through to too under " +
    "until up very was we were what when where which while who whom why will with would you your yours yet still " +
    "get got make made let us use used using want need please then first next last one ones thing things " +
    // Words about the work itself, not its topic: "What is the next step toward the goal?" names no
    // subject that could drift (the budget scenario's question never left its goal).
    "step steps goal goals task tasks toward towards progress continue done work working"
  ).split(" "),
);

/** Light suffix stripping (a tiny Porter-style subset): licenses/licensing/license → "licens". */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith("ly")) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** Content words of `text`: lower-cased alphanumeric tokens, stop words removed, stemmed, distinct. */
export function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const token of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (token.length < 2 || STOP_WORDS.has(token)) continue;
    out.add(stem(token));
  }
  return out;
}

/**
 * Drift score in [0, 1]: the share of the open question's content words (see `contentWords`) that
 * also occur in the goal. 1 = every term of the question comes from the goal; 0 = none does. An
 * empty question (no content words) scores 1 (nothing to judge).
 *
 * Why a lexical heuristic and not a judge model: it runs after every step, offline, deterministically
 * and for free, so it can be unit-tested and replayed; a judge model would add cost, latency and
 * nondeterminism to every step. It is a cheap first filter behind a warning only; a judge-model hook
 * can replace `driftScore` with the same signature.
 *
 * Threshold (DEFAULT_THRESHOLDS.driftThreshold = 0.15): an open question usually has 3–8 content
 * words and, when it serves the goal, repeats at least one of the goal's nouns ("license",
 * "packages"). 0.15 lets a question of up to 6 content words pass with a single shared term (1/6 ≈
 * 0.17), because synonyms ("dependency" for "package") and specifics (package names, counts) are
 * invisible to word overlap, while a question sharing nothing with the goal scores 0. False positives
 * are cheap (a warning, no escalation); the threshold is set so that only an essentially unrelated
 * question trips it. Tested on the license-audit pairs in tests/unit/detectors.test.ts.
 */
export function driftScore({ goal, openQuestion }: { goal: string; openQuestion: string }): number {
  const question = contentWords(openQuestion);
  if (question.size === 0) return 1;
  const goalWords = contentWords(goal);
  let shared = 0;
  for (const w of question) if (goalWords.has(w)) shared++;
  return shared / question.size;
}

/**
 * Drift: the open question no longer serves the goal. `driftScore < threshold` → `drift` warning
 * (escalate false: the heuristic informs the operator, it does not stop the run). Null when there is
 * no open question or it scores at or above the threshold.
 */
export function detectDrift({
  goal,
  openQuestion,
  stepId,
  threshold = DEFAULT_THRESHOLDS.driftThreshold,
}: {
  goal: string;
  openQuestion: string | null | undefined;
  stepId: string;
  threshold?: number;
}): Alert | null {
  if (!openQuestion?.trim()) return null;
  const score = driftScore({ goal, openQuestion });
  if (score >= threshold) return null;
  return {
    kind: "drift",
    severity: "warning",
    stepId,
    message: `The open question may no longer serve the goal (overlap ${score.toFixed(2)} < ${threshold}): "${openQuestion.trim()}"`,
    evidence: { stepIds: [stepId], score, threshold, openQuestion: openQuestion.trim() },
    escalate: false,
  };
}

// ---------------------------------------------------------------------------------------------------
// Entry point

/**
 * Runs every detector over the history and returns the alerts raised **by the latest step** (the last
 * element of `steps`), so the loop can call it after each step without repeating older alerts. Most
 * severe first (critical before warning); empty when `steps` is empty. At most one alert per kind
 * (a step is one tool call, so one loop), matching the `alert` table's unique (run, step, kind).
 *
 * - `steps`: the run's history, oldest first; `sinceStepIndex` starts the stall/loop window (module
 *   docstring).
 * - `goal` and `openQuestion`: drift. Without `openQuestion` the latest step's `openQuestion` is
 *   judged, and only when it differs from the last one stated before it (so an unchanged off-goal
 *   question is warned once). An explicit `openQuestion` is judged on every call.
 * - `budgets` (+ optional `previousBudgets`, the usage before this step): see `budgetAlert`.
 * - `context` (optional): prompt tokens vs the model's context window; ≥ `ratio` → `saturation`
 *   info (the loop checkpoints and compacts, checkpoint.ts `isSaturated`; not an escalation).
 * - `thresholds`: overrides of DEFAULT_THRESHOLDS (those a profile sets: {@link DetectorThresholds}).
 */
export function detectAlerts({
  steps,
  sinceStepIndex = 0,
  goal,
  openQuestion,
  budgets,
  previousBudgets,
  context,
  thresholds = {},
}: {
  steps: readonly StepRecord[];
  sinceStepIndex?: number;
  goal: string;
  openQuestion?: string | null;
  budgets?: BudgetUsage;
  previousBudgets?: Pick<BudgetUsage, "stepsUsed" | "tokensUsed" | "costUsd">;
  context?: { promptTokens: number; contextWindow: number; ratio: number };
  thresholds?: Partial<DetectorThresholds>;
}): Alert[] {
  const latest = steps.at(-1);
  if (!latest) return [];
  const t = { ...DEFAULT_THRESHOLDS, ...thresholds };
  const byLatest = (a: Alert): boolean => a.stepId === latest.stepId;
  const alerts: Alert[] = [
    ...detectStall({ steps, sinceStepIndex, stallSteps: t.stallSteps, graceSteps: t.graceSteps }).filter(byLatest),
    ...detectRepeatedCalls({ steps, sinceStepIndex, repeatableTools: t.repeatableTools }).filter(byLatest),
    ...detectToolFailures({ steps, sinceStepIndex, toolFailureSteps: t.toolFailureSteps }).filter(byLatest),
  ];
  if (budgets) {
    const budget = budgetAlert({ ...budgets, previous: previousBudgets, stepId: latest.stepId, warnRatio: t.budgetWarnRatio });
    if (budget) alerts.push(budget);
  }
  if (context && context.contextWindow > 0 && context.promptTokens >= Math.floor(context.contextWindow * context.ratio)) {
    alerts.push({
      kind: "saturation",
      severity: "info",
      stepId: latest.stepId,
      message: `Prompt at ${context.promptTokens} of ${context.contextWindow} context tokens; checkpoint and compact.`,
      evidence: { stepIds: [latest.stepId], ...context },
      escalate: false,
    });
  }
  const earlierQuestion = steps.slice(0, -1).findLast((s) => s.openQuestion !== undefined)?.openQuestion;
  const question = openQuestion === undefined ? (latest.openQuestion !== earlierQuestion ? latest.openQuestion : undefined) : openQuestion;
  const drift = detectDrift({ goal, openQuestion: question, stepId: latest.stepId, threshold: t.driftThreshold });
  if (drift) alerts.push(drift);
  const rank: Record<AlertSeverity, number> = { critical: 0, warning: 1, info: 2 };
  return alerts.sort((a, b) => rank[a.severity] - rank[b.severity]);
}

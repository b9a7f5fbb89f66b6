import diff from "microdiff";
import { z } from "zod";
import type { ChatMessage } from "../llm/types.ts";
import type { CompletedStepSummary, WorkingSet } from "./agent-context.ts";
import type { FactReference } from "./fact-reference.ts";

/**
 * Why a checkpoint was taken (docs/ARCHITECTURE.md "How a run works", step 5). Checkpoint.reason has
 * a CHECK constraint equal to this list (migration status_checks). `cancelled`: a person stopped the
 * run, and the checkpoint holds the state after its last finished step
 * (server/db/cancel-checkpoint.ts); `human_edit`: a copy of the checkpoint a handler resumed from,
 * with the facts they edited (server/db/apply-decision-ports.ts).
 */
export const CHECKPOINT_REASONS = [
  "phase_complete",
  "expensive_step",
  "before_risky",
  "saturation",
  "on_request",
  "interval",
  "ceiling",
  "loop",
  "stall",
  "request_human",
  "tool_failure",
  "failure",
  "cancelled",
  "human_edit",
] as const;
export type CheckpointReason = (typeof CHECKPOINT_REASONS)[number];

/**
 * Decides whether the boundary after a model turn and its tool calls is a meaningful place for a
 * checkpoint. Order of precedence: a requested checkpoint, a completed phase, an expensive step,
 * then the safety net of `every` steps since the last checkpoint. Pure. Returns null for "not here":
 * never every step, never only at the start.
 *
 * - `stepsSinceCheckpoint`: model + tool steps since the last checkpoint (or the segment start).
 * - `lastModelCostUsd` vs `expensiveStepUsd` (null = no threshold).
 */
export function checkpointReasonAfterTurn({
  requested,
  phaseCompleted,
  lastModelCostUsd,
  expensiveStepUsd,
  stepsSinceCheckpoint,
  every,
}: {
  requested: boolean;
  phaseCompleted: boolean;
  lastModelCostUsd: number;
  expensiveStepUsd: number | null;
  stepsSinceCheckpoint: number;
  every: number;
}): CheckpointReason | null {
  if (requested) return "on_request";
  if (phaseCompleted) return "phase_complete";
  if (expensiveStepUsd !== null && lastModelCostUsd > expensiveStepUsd) return "expensive_step";
  if (every > 0 && stepsSinceCheckpoint >= every) return "interval";
  return null;
}

/**
 * True when the next prompt (`promptTokens`, counted locally) reaches `ratio` of the model's
 * context window: the run checkpoints and continues from the compacted state instead of failing.
 */
export function isSaturated({ promptTokens, contextWindow, ratio }: { promptTokens: number; contextWindow: number; ratio: number }): boolean {
  return promptTokens >= Math.floor(contextWindow * ratio);
}

/** How many completed steps a checkpoint keeps itemised; older ones are folded into one line. */
export const KEEP_COMPLETED_STEPS = 30;

/**
 * Compacts the completed steps of a checkpoint: the newest `keep` entries stay whole; older ones are
 * folded into a single entry counting them by tool ("… 1,200 earlier steps: read_file ×600,
 * record_fact ×600; their results are in the working set"). Side-effect entries are never folded
 * (the agent must know the email went out). Entries are kept or dropped whole — never cut in the
 * middle. Pure.
 */
export function compactCompletedSteps(steps: CompletedStepSummary[], keep = KEEP_COMPLETED_STEPS): CompletedStepSummary[] {
  const isEffect = (s: CompletedStepSummary) => s.stepId.startsWith("effect:");
  const folded = steps.filter((s) => s.stepId === "earlier");
  const rest = steps.filter((s) => s.stepId !== "earlier");
  const effects = rest.filter(isEffect);
  const plain = rest.filter((s) => !isEffect(s));
  if (plain.length <= keep && folded.length <= 1) return [...folded, ...effects, ...plain];
  const older = plain.slice(0, Math.max(0, plain.length - keep));
  const counts = new Map<string, number>();
  let total = 0;
  for (const f of folded) {
    const m = /^(\d+) earlier steps: (.*?)(;|$)/.exec(f.summary);
    if (!m) continue;
    total += Number(m[1]);
    for (const part of m[2]!.split(", ")) {
      const pm = /^(.+?) ×(\d+)$/.exec(part);
      if (pm) counts.set(pm[1]!, (counts.get(pm[1]!) ?? 0) + Number(pm[2]));
    }
  }
  for (const s of older) {
    total += 1;
    const name = s.tool ?? "model";
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const byTool = [...counts].map(([name, n]) => `${name} ×${n}`).join(", ");
  const summary: CompletedStepSummary = { stepId: "earlier", summary: `${total} earlier steps: ${byTool}; their results are in the working set` };
  return [summary, ...effects, ...(keep > 0 ? plain.slice(-keep) : [])];
}

/** The model's answer to a checkpoint request; anything else is replaced by a deterministic summary. */
export const checkpointAnswerSchema = z.object({
  summary: z.string().max(4_000),
  openQuestion: z.string().max(2_000).nullable().optional(),
  phase: z.string().max(200).nullable().optional(),
});
export type CheckpointAnswer = z.infer<typeof checkpointAnswerSchema>;

/** The instruction sent to the model to write a checkpoint (the reply must be JSON). */
export const CHECKPOINT_REQUEST =
  "<checkpoint_request>Pause. Write a checkpoint of your progress as a JSON object with keys " +
  '"summary" (what is done, in two sentences), "openQuestion" (what you are in the middle of deciding) and ' +
  '"phase" (a short name for the current phase). Reply with the JSON object only.</checkpoint_request>';

/**
 * Parses the model's checkpoint answer (untrusted). Returns the answer or, when it is not the JSON
 * asked for, a deterministic fallback built from the fact count, flagged `fromModel: false`.
 */
export function parseCheckpointAnswer(content: string | null, factCount: number): CheckpointAnswer & { fromModel: boolean } {
  const text = (content ?? "").trim().replace(/^```(?:json)?\s*|\s*```$/g, "");
  try {
    const parsed = checkpointAnswerSchema.safeParse(JSON.parse(text));
    if (parsed.success) return { ...parsed.data, fromModel: true };
  } catch {
    // not JSON
  }
  return { summary: `${factCount} facts established.`, openQuestion: null, phase: null, fromModel: false };
}

/** Share of the context window a checkpoint or compaction request may fill (the rest is for the reply). */
export const SUMMARY_REQUEST_WINDOW_SHARE = 0.9;

/**
 * The messages of a checkpoint (or compaction) request that fit `budgetTokens`: the segment's whole
 * transcript plus `request` when it fits; otherwise the checkpoint's own state messages (`state`:
 * system prompt + goal, working set, completed steps — what the next segment will start from) plus
 * the longest tail of the transcript that fits, starting at an assistant or user message so no tool
 * result is orphaned from its call. Messages are kept or dropped whole, never cut. Returns null when
 * even the state and the request do not fit (the caller then assembles the checkpoint without a
 * model summary rather than send a request the provider would refuse). Pure; `count` = prompt tokens
 * of a message list (server/llm/tokens.ts `countTokens`).
 */
export function fitSummaryRequest({
  transcript,
  state,
  request,
  budgetTokens,
  count,
}: {
  transcript: ChatMessage[];
  state: ChatMessage[];
  request: ChatMessage;
  budgetTokens: number;
  count: (messages: ChatMessage[]) => number;
}): ChatMessage[] | null {
  const whole = [...transcript, request];
  if (count(whole) <= budgetTokens) return whole;
  const base = [...state, request];
  if (count(base) > budgetTokens) return null;
  // The transcript opens with its own system + first user message; the state replaces them.
  const body = transcript.slice(2);
  let best: ChatMessage[] = [];
  let lo = 0;
  let hi = body.length; // search the smallest start index whose tail fits (tails shrink as the start grows)
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const tail = body.slice(mid);
    if (count([...state, ...tail, request]) <= budgetTokens) hi = mid;
    else lo = mid + 1;
  }
  for (let i = lo; i < body.length; i++) {
    if (body[i]!.role === "tool") continue;
    best = body.slice(i);
    break;
  }
  return [...state, ...best, request];
}

/** One working-set change between two states. */
export interface FactChange {
  key: string;
  kind: "added" | "changed" | "removed";
  before?: unknown;
  after?: unknown;
}

/**
 * The working-set diff from `before` to `after`, by fact key: added, changed (any nested difference,
 * compared with `microdiff`), removed. Sorted by key. Pure.
 */
export function diffWorkingSets(before: WorkingSet, after: WorkingSet): FactChange[] {
  const keys = new Map<string, FactChange>();
  for (const d of diff(before, after)) {
    const key = String(d.path[0]);
    if (keys.has(key)) continue;
    if (d.path.length === 1 && d.type === "CREATE") keys.set(key, { key, kind: "added", after: after[key] });
    else if (d.path.length === 1 && d.type === "REMOVE") keys.set(key, { key, kind: "removed", before: before[key] });
    else keys.set(key, { key, kind: "changed", before: before[key], after: after[key] });
  }
  return [...keys.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** Longest JSON a completed-step entry carries whole; longer documents are described, never cut. */
export const WHOLE_JSON_MAX = 240;

/**
 * The compact, whole-valued line a tool step leaves in a checkpoint: the tool, its arguments and its
 * result as whole JSON when short, otherwise described (keys, sizes, ids) — a value or a JSON
 * document is never cut in the middle (a checkpoint near the context window is compacted, but keeps
 * whole facts and ids). Pure.
 */
export function describeToolStep(
  tool: string,
  rawArguments: string,
  result: { ok: true; output: unknown } | { ok: false; error: { code: string; message: string } },
): string {
  const whole = (value: unknown): string | null => {
    const text = JSON.stringify(value);
    return text !== undefined && text.length <= WHOLE_JSON_MAX ? text : null;
  };
  const describe = (value: unknown): string => {
    const text = whole(value);
    if (text !== null) return text;
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const parts = Object.entries(value as Record<string, unknown>).map(([k, v]) => {
        const w = whole(v);
        if (w !== null && w.length <= 80) return `${k}: ${w}`;
        if (typeof v === "string") return `${k}: <${v.length} chars>`;
        if (Array.isArray(v)) return `${k}: <${v.length} items>`;
        return `${k}: <${JSON.stringify(v)?.length ?? 0} chars of JSON>`;
      });
      return `{${parts.join(", ")}}`;
    }
    if (Array.isArray(value)) return `<${value.length} items>`;
    return `<${String(value).length} chars>`;
  };
  let args: string;
  try {
    args = describe(JSON.parse(rawArguments));
  } catch {
    args = rawArguments.length <= WHOLE_JSON_MAX ? rawArguments : `<${rawArguments.length} chars of malformed JSON>`;
  }
  const outcome = result.ok ? describe(result.output) : `error ${result.error.code}`;
  return `${tool} ${args} → ${outcome}`;
}

/** Working-set values at most this long (JSON characters) stay whole when a checkpoint is compacted. */
export const COMPACT_VALUE_MIN_CHARS = 200;

/** Completed steps a compacted checkpoint keeps itemised (the rest are folded into one line). */
export const COMPACT_KEEP_STEPS = 5;

export type { FactReference } from "./fact-reference.ts";

/** "<12,345 chars of JSON: object with 40 keys>" — a value described by shape and size, never cut. */
export function describeValue(value: unknown): string {
  const chars = JSON.stringify(value)?.length ?? 0;
  const shape =
    typeof value === "string"
      ? "a string"
      : Array.isArray(value)
        ? `an array of ${value.length} items`
        : value && typeof value === "object"
          ? `an object with ${Object.keys(value).length} keys (${Object.keys(value).slice(0, 5).join(", ")}${Object.keys(value).length > 5 ? ", …" : ""})`
          : typeof value;
  return `${chars.toLocaleString("en-US")} chars of JSON: ${shape}`;
}

/**
 * Compacts a checkpoint's own state until the prompt it starts from fits `limitTokens` (a
 * checkpoint too big for the window), aiming at `targetTokens` (default: the limit) so the segment
 * that starts from it has room to work — a start that only just fits saturates again within a few
 * turns. In order, each step only while still over the target:
 * 1. completed steps folded to the newest COMPACT_KEEP_STEPS (`compactCompletedSteps`);
 * 2. the largest working-set values (over COMPACT_VALUE_MIN_CHARS characters of JSON), largest
 *    first, replaced by a FactReference `{ $ref: refFor(key), description }` — the whole value stays
 *    in the row `refFor` names (the source checkpoint, or the task's input);
 * 3. completed steps folded entirely (side effects are never folded).
 * Returns the compacted state, its size (`count` of the messages it yields) and whether it fits.
 * Pure; `measure` builds and counts the prompt a state yields (the loop's own count).
 */
export function compactCheckpointState({
  workingSet,
  completedSteps,
  limitTokens,
  targetTokens = limitTokens,
  measure,
  refFor,
}: {
  workingSet: WorkingSet;
  completedSteps: CompletedStepSummary[];
  limitTokens: number;
  /** Tokens to compact down to when possible (≤ limitTokens); `fits` is judged against the limit. */
  targetTokens?: number;
  measure: (state: { workingSet: WorkingSet; completedSteps: CompletedStepSummary[] }) => number;
  refFor: (key: string) => string;
}): { workingSet: WorkingSet; completedSteps: CompletedStepSummary[]; tokens: number; fits: boolean; referenced: string[] } {
  let steps = compactCompletedSteps(completedSteps, COMPACT_KEEP_STEPS);
  const ws: WorkingSet = { ...workingSet };
  const referenced: string[] = [];
  let tokens = measure({ workingSet: ws, completedSteps: steps });
  const large = Object.entries(workingSet)
    .map(([key, value]) => ({ key, value, chars: JSON.stringify(value)?.length ?? 0 }))
    .filter((e) => e.chars > COMPACT_VALUE_MIN_CHARS)
    .sort((a, b) => b.chars - a.chars || (a.key < b.key ? -1 : 1));
  const target = Math.min(targetTokens, limitTokens);
  for (const e of large) {
    if (tokens <= target) break;
    ws[e.key] = { $ref: refFor(e.key), description: describeValue(e.value) } satisfies FactReference;
    referenced.push(e.key);
    tokens = measure({ workingSet: ws, completedSteps: steps });
  }
  if (tokens > target) {
    steps = compactCompletedSteps(steps, 0);
    tokens = measure({ workingSet: ws, completedSteps: steps });
  }
  return { workingSet: ws, completedSteps: steps, tokens, fits: tokens <= limitTokens, referenced };
}

/**
 * The largest prompt (tokens, counted locally) a compaction after a context-length refusal aims
 * at: the window the provider stated in its refusal — else one it stated before
 * (`knownLimitTokens`), else the profile's `contextWindow`, never more than the profile's — times
 * the saturation `ratio`. When the provider counted the refused prompt higher than the loop did
 * (another tokenizer), the limit shrinks by the same proportion, so "fits" means fits by the
 * provider's count too. Pure.
 */
export function refusalCompactionLimit({
  contextWindow,
  ratio,
  statedLimitTokens,
  knownLimitTokens = null,
  localPromptTokens = null,
  providerPromptTokens = null,
}: {
  contextWindow: number;
  ratio: number;
  statedLimitTokens: number | null;
  knownLimitTokens?: number | null;
  localPromptTokens?: number | null;
  providerPromptTokens?: number | null;
}): number {
  const stated = [statedLimitTokens, knownLimitTokens].find((v): v is number => typeof v === "number" && v > 0) ?? null;
  const window = stated !== null ? Math.min(stated, contextWindow) : contextWindow;
  const scale = localPromptTokens && providerPromptTokens && providerPromptTokens > localPromptTokens ? localPromptTokens / providerPromptTokens : 1;
  return Math.max(1, Math.floor(window * ratio * scale));
}

/**
 * Pure logic of the run page's timeline: the step filter (kept in the URL), the cut of runs into
 * segments, and the flat list of rows the virtual timeline renders (run headers, collapsible segment
 * headers, steps). No React here, so it is unit tested on plain data (tests/unit/step-filter.test.ts).
 */

import type { StepSummaryRow } from "@/server/db/task-queries.ts";
import { CUTTING_CHECKPOINT_REASONS as CUTTING, WHOLE_STEP_LIST, type StepWindow } from "../../lib/contracts/step-rows.ts";

export const STEP_KINDS = ["model", "tool", "checkpoint", "human"] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/**
 * The fields of a timeline step these functions read: those of the server's step summary
 * (server/db/task-queries.ts `StepSummaryRow`), plus, for tool steps, a short hash of the arguments
 * (equal for identical calls; null or absent otherwise).
 */
export type FilterableStep = Pick<
  StepSummaryRow,
  "runId" | "stepId" | "index" | "kind" | "tool" | "status" | "summary" | "attempts" | "costUsd" | "checkpointReason" | "startedAt" | "endedAt"
> & { argsKey?: string | null };

/** What the timeline shows; URL params `kind` (comma list), `tool`, `failed=1`, `retried=1`, `dedup=1`, `q`. */
export interface StepFilter {
  kinds: StepKind[];
  tool: string | null;
  failed: boolean;
  retried: boolean;
  dedup: boolean;
  /** Text searched on the server in arguments, output, summary and error. */
  text: string;
}

/** Reads the filter from URL params (unknown kinds are ignored). */
export function parseStepFilter(params: URLSearchParams): StepFilter {
  return {
    kinds: (params.get("kind") ?? "").split(",").filter((k): k is StepKind => (STEP_KINDS as readonly string[]).includes(k)),
    tool: params.get("tool") || null,
    failed: params.get("failed") === "1",
    retried: params.get("retried") === "1",
    dedup: params.get("dedup") === "1",
    text: (params.get("q") ?? "").trim(),
  };
}

/** Writes the filter into URL params (empty parts removed). */
export function writeStepFilter(params: URLSearchParams, f: StepFilter): URLSearchParams {
  const out = new URLSearchParams(params.toString());
  const set = (k: string, v: string | null) => (v ? out.set(k, v) : out.delete(k));
  set("kind", f.kinds.join(","));
  set("tool", f.tool);
  set("failed", f.failed ? "1" : null);
  set("retried", f.retried ? "1" : null);
  set("dedup", f.dedup ? "1" : null);
  set("q", f.text || null);
  return out;
}

export function isFiltering(f: StepFilter): boolean {
  return f.kinds.length > 0 || !!f.tool || f.failed || f.retried || f.dedup || !!f.text;
}

/** A deduplicated side effect: the tool step returned the recorded result of a committed effect (its summary says "· deduplicated"). */
export function isDeduplicated(s: Pick<FilterableStep, "summary">): boolean {
  return s.summary.includes("· deduplicated");
}

/**
 * Whether a step passes the filter: every active part must hold (kind in `kinds`, tool equal,
 * failed, attempts > 1, deduplicated, and `<runId>:<stepId>` in `textMatches` when searching).
 * `textMatches` null while a search is loading: the text part then passes nothing.
 */
export function stepMatches(s: FilterableStep, f: StepFilter, textMatches: Set<string> | null): boolean {
  if (f.kinds.length && !(f.kinds as readonly string[]).includes(s.kind)) return false;
  if (f.tool && s.tool !== f.tool) return false;
  if (f.failed && s.status !== "failed") return false;
  if (f.retried && s.attempts <= 1) return false;
  if (f.dedup && !isDeduplicated(s)) return false;
  if (f.text && !textMatches?.has(`${s.runId}:${s.stepId}`)) return false;
  return true;
}

/** Checkpoint reasons after which the run goes on in a new segment (lib/contracts/step-rows.ts). */
export const CUTTING_CHECKPOINT_REASONS: ReadonlySet<string> = new Set(CUTTING);

export interface Segment<T extends FilterableStep = FilterableStep> {
  /** `<runId>#<n>` */
  key: string;
  runId: string;
  /** 1-based within its run. */
  n: number;
  /** Reason of the checkpoint it starts from; null for the run's first segment. */
  fromReason: string | null;
  /** True when the segment started before the first listed step (its earlier steps are not listed). */
  partial?: boolean;
  steps: T[];
  failed: number;
  retried: number;
  costUsd: number;
}

/**
 * Cuts steps (already in timeline order: runs by start, steps by index) into segments: a new one
 * starts after every checkpoint step whose reason cuts (see {@link CUTTING_CHECKPOINT_REASONS}) and at
 * every new run. The checkpoint step closes its segment. A list that starts part-way (task.steps'
 * newest steps) passes its `window`: the first segment takes its number, checkpoint reason and
 * partial flag from it, so segment numbers (and keys) are those of the whole list.
 */
export function buildSegments<T extends FilterableStep>(steps: T[], window: StepWindow = WHOLE_STEP_LIST): Segment<T>[] {
  const out: Segment<T>[] = [];
  let current: Segment<T> | null = null;
  let cutNext = false;
  for (const s of steps) {
    if (!current || current.runId !== s.runId || cutNext) {
      const first: StepWindow["firstSegment"] | null = current === null ? window.firstSegment : null;
      const n: number = first ? first.n : current && current.runId === s.runId ? current.n + 1 : 1;
      const fromReason: string | null = first ? first.fromReason : n > 1 && current ? (current.steps.at(-1)?.checkpointReason ?? null) : null;
      current = { key: `${s.runId}#${n}`, runId: s.runId, n, fromReason, steps: [], failed: 0, retried: 0, costUsd: 0 };
      if (first?.partial) current.partial = true;
      out.push(current);
    }
    current.steps.push(s);
    if (s.status === "failed") current.failed += 1;
    if (s.attempts > 1) current.retried += 1;
    current.costUsd += s.costUsd;
    cutNext = s.kind === "checkpoint" && s.checkpointReason !== null && CUTTING_CHECKPOINT_REASONS.has(s.checkpointReason);
  }
  return out;
}

/** A run of identical repeats: `times` consecutive turns making the same tool calls with the same arguments. */
export interface RepeatFold<T extends FilterableStep = FilterableStep> {
  /** `fold:<runId>:<first stepId>` */
  key: string;
  steps: T[];
  /** Positions (1-based, whole timeline) of the steps, in order. */
  positions: number[];
  times: number;
  /** The repeated calls of one turn, e.g. ["list_files"]. */
  tools: string[];
  /** Summary of the first repeated tool step ("list_files(.)"). */
  summary: string;
}

/**
 * Folds identical repeats into one row, `12× search(…)` (a loop the detector
 * warns about at the 2nd identical call would otherwise fill the list): the steps are cut into turns (a model step and the tool
 * steps after it; any other step stands alone), and 2 or more consecutive turns whose tool calls
 * are the same tools with the same arguments (`argsKey`) become one fold. A turn without tool calls
 * never folds. Returns the steps in order, each either a single step or a fold.
 */
export function foldRepeats<T extends FilterableStep>(
  steps: { step: T; position: number }[],
): ({ type: "one"; step: T; position: number } | { type: "fold"; fold: RepeatFold<T> })[] {
  type Entry = { step: T; position: number };
  const turns: { entries: Entry[]; signature: string | null }[] = [];
  for (const e of steps) {
    const last = turns.at(-1);
    if (e.step.kind === "tool" && last && last.entries[0]!.step.kind === "model") last.entries.push(e);
    else turns.push({ entries: [e], signature: null });
  }
  for (const t of turns) {
    const tools = t.entries.filter((e) => e.step.kind === "tool");
    if (t.entries[0]!.step.kind === "model" && tools.length > 0 && tools.every((e) => e.step.argsKey))
      t.signature = tools.map((e) => `${e.step.tool}:${e.step.argsKey}`).join("|");
  }
  const out: ({ type: "one"; step: T; position: number } | { type: "fold"; fold: RepeatFold<T> })[] = [];
  for (let i = 0; i < turns.length;) {
    const sig = turns[i]!.signature;
    let j = i + 1;
    while (sig !== null && j < turns.length && turns[j]!.signature === sig) j++;
    if (j - i >= 2) {
      const entries = turns.slice(i, j).flatMap((t) => t.entries);
      const firstTool = entries.find((e) => e.step.kind === "tool")!.step;
      out.push({
        type: "fold",
        fold: {
          key: `fold:${entries[0]!.step.runId}:${entries[0]!.step.stepId}`,
          steps: entries.map((e) => e.step),
          positions: entries.map((e) => e.position),
          times: j - i,
          tools: turns[i]!.entries.filter((e) => e.step.kind === "tool").map((e) => e.step.tool ?? "tool"),
          summary: firstTool.summary || firstTool.tool || "tool",
        },
      });
    } else for (const e of turns[i]!.entries) out.push({ type: "one", ...e });
    i = j;
  }
  return out;
}

export type TimelineItem<T extends FilterableStep = FilterableStep> =
  | { type: "run"; runId: string; key: string }
  | { type: "segment"; segment: Segment<T>; key: string; collapsed: boolean; shown: number }
  | { type: "fold"; fold: RepeatFold<T>; key: string; expanded: boolean }
  | { type: "step"; step: T; key: string; position: number; inFold?: boolean };

/**
 * The flat rows of the timeline: for each run (only `runId` when given) a run header (when there
 * are several runs), for each segment a header, then its matching steps unless the segment is
 * collapsed. While filtering, segments without a match are left out. `position` is the step's
 * 1-based place in the whole timeline (`before`: steps of the task before the first listed one). Unless filtering, identical repeats ({@link foldRepeats})
 * show as one fold row, followed by their steps only when its key is in `expandedFolds`.
 */
export function timelineItems<T extends FilterableStep>(
  segments: Segment<T>[],
  {
    runId,
    collapsed,
    matches,
    filtering,
    runCount,
    expandedFolds,
    before = 0,
  }: {
    runId: string | null;
    collapsed: Set<string>;
    matches: (s: T) => boolean;
    filtering: boolean;
    runCount: number;
    expandedFolds?: Set<string>;
    before?: number;
  },
): TimelineItem<T>[] {
  const items: TimelineItem<T>[] = [];
  let position = before;
  let lastRun: string | null = null;
  for (const seg of segments) {
    const shownSteps: { step: T; position: number }[] = [];
    for (const s of seg.steps) {
      position += 1;
      if (matches(s)) shownSteps.push({ step: s, position });
    }
    if (runId && seg.runId !== runId) continue;
    if (filtering && shownSteps.length === 0) continue;
    if (runCount > 1 && !runId && seg.runId !== lastRun) items.push({ type: "run", runId: seg.runId, key: `run:${seg.runId}` });
    lastRun = seg.runId;
    const isCollapsed = collapsed.has(seg.key);
    items.push({ type: "segment", segment: seg, key: `seg:${seg.key}`, collapsed: isCollapsed, shown: shownSteps.length });
    if (isCollapsed) continue;
    if (filtering) {
      for (const { step, position: p } of shownSteps) items.push({ type: "step", step, key: `${step.runId}:${step.stepId}`, position: p });
      continue;
    }
    for (const part of foldRepeats(shownSteps)) {
      if (part.type === "one") {
        items.push({ type: "step", step: part.step, key: `${part.step.runId}:${part.step.stepId}`, position: part.position });
        continue;
      }
      const expanded = expandedFolds?.has(part.fold.key) ?? false;
      items.push({ type: "fold", fold: part.fold, key: part.fold.key, expanded });
      if (expanded)
        part.fold.steps.forEach((step, k) =>
          items.push({ type: "step", step, key: `${step.runId}:${step.stepId}`, position: part.fold.positions[k]!, inFold: true }),
        );
    }
  }
  return items;
}

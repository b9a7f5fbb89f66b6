import type { FilterableStep } from "../step-filter.ts";

/** One step row of the timeline: a step summary (components/tasks/step-rows.ts) with its error, tokens and duration. */
export interface TimelineStep extends FilterableStep {
  error: string | null;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  durationMs: number | null;
  /** The effort its model call ran at (the effort dial's decision), null without one. */
  effort?: { level: string; model: string; rule: string } | null;
}

/** A run as the timeline labels it. */
export interface TimelineRun {
  id: string;
  number: number;
  cause: string;
  status: string;
  fromCheckpointSeq: number | null;
}

/** Working-set changes of one step, for its mark on the timeline ("+2 facts"). */
export interface StepFactCounts {
  added: number;
  changed: number;
  removed: number;
}

/** Fixed height of every timeline row, px (the virtualizer's row size). */
export const ROW_HEIGHT = 44;

/** How a run started, in words: "initial", "resume from checkpoint #3", "fork". */
export function causeLabel(run: Pick<TimelineRun, "cause" | "fromCheckpointSeq">): string {
  const cause = run.cause.replace("_", " ");
  return run.fromCheckpointSeq !== null ? `${cause} from checkpoint #${run.fromCheckpointSeq}` : cause === "initial" ? "initial" : cause;
}

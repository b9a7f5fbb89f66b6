/**
 * Pure derivations of the run page (no React): the runs table the timeline reads, the window of
 * steps the waterfall draws, and the checkpoint a fork of the selected step starts from.
 */
import type { ForkPoint } from "../detail-panel.tsx";
import type { Segment } from "../step-filter.ts";
import type { TimelineRun, TimelineStep } from "../timeline.tsx";

/** A run as the run page shows it: the timeline's fields plus its times, end reason and guidance. */
export type RunInfo = TimelineRun & {
  startedAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  fromCheckpointReason: string | null;
  guidance: string | null;
};

interface RunRow {
  id: string;
  cause: string;
  status: string;
  fromCheckpointId: string | null;
  startedAt: Date;
  endedAt: Date | null;
  endReason: string | null;
  guidance: string | null;
}
interface CheckpointRow {
  id: string;
  seq: number;
  reason: string;
  runId: string;
  afterStepId: string;
  good: boolean;
}

/** Runs by id, numbered 1… in launch order, each with the seq and reason of the checkpoint it started from. */
export function runsById(runs: readonly RunRow[], checkpoints: readonly CheckpointRow[]): Map<string, RunInfo> {
  const byId = new Map(checkpoints.map((c) => [c.id, c]));
  const out = new Map<string, RunInfo>();
  runs.forEach((r, i) => {
    const from = r.fromCheckpointId ? byId.get(r.fromCheckpointId) : undefined;
    out.set(r.id, {
      id: r.id,
      number: i + 1,
      cause: r.cause,
      status: r.status,
      fromCheckpointSeq: r.fromCheckpointId ? (from?.seq ?? null) : null,
      fromCheckpointReason: r.fromCheckpointId ? (from?.reason ?? null) : null,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      endReason: r.endReason,
      guidance: r.guidance,
    });
  });
  return out;
}

/** The bars the waterfall draws: at most this many, around the selection. */
export const WATERFALL_MAX_BARS = 400;

/**
 * The waterfall's window: the selected step's segment, else the last segment in view (`runId` null
 * = every run), cut to {@link WATERFALL_MAX_BARS} steps around the selection; null when no segment.
 */
export function waterfallWindow(
  segments: readonly Segment<TimelineStep>[],
  runId: string | null,
  selected: TimelineStep | null,
  runs: ReadonlyMap<string, RunInfo>,
): { steps: TimelineStep[]; from: Date | null; to: Date | null; title: string } | null {
  const inView = segments.filter((g) => !runId || g.runId === runId);
  const seg = (selected && inView.find((g) => g.runId === selected.runId && g.steps.includes(selected))) ?? inView.at(-1);
  if (!seg) return null;
  let list = seg.steps;
  if (list.length > WATERFALL_MAX_BARS) {
    const at = selected ? Math.max(0, list.indexOf(selected)) : list.length - 1;
    const from = Math.max(0, Math.min(list.length - WATERFALL_MAX_BARS, at - WATERFALL_MAX_BARS / 2));
    list = list.slice(from, from + WATERFALL_MAX_BARS);
  }
  const run = runs.get(seg.runId);
  const last = list.at(-1);
  return {
    steps: list,
    from: list[0]?.startedAt ?? null,
    to: last ? (last.endedAt ?? new Date(last.startedAt.getTime() + (last.durationMs ?? 0))) : null,
    title: `run ${run?.number ?? "?"}, segment ${seg.n}${list.length < seg.steps.length ? ` (${list.length} of ${seg.steps.length} steps)` : ""}`,
  };
}

/**
 * The checkpoint at or before the selected step: the latest good one of its run whose last covered
 * step is at or before it, else the one its run started from; null when none.
 */
export function forkPoint(
  selected: TimelineStep | null,
  rows: readonly TimelineStep[],
  checkpoints: readonly CheckpointRow[] | undefined,
  runs: readonly { id: string; fromCheckpointId: string | null }[],
): ForkPoint | null {
  if (!selected || !checkpoints) return null;
  const indexOf = new Map(rows.filter((s) => s.runId === selected.runId).map((s) => [s.stepId, s.index]));
  const own = checkpoints.filter((c) => c.runId === selected.runId && (indexOf.get(c.afterStepId) ?? Infinity) <= selected.index && c.good);
  const best = own.at(-1);
  if (best) return { id: best.id, seq: best.seq, reason: best.reason };
  const from = runs.find((r) => r.id === selected.runId)?.fromCheckpointId;
  const cp = from ? checkpoints.find((c) => c.id === from) : undefined;
  return cp ? { id: cp.id, seq: cp.seq, reason: cp.reason } : null;
}

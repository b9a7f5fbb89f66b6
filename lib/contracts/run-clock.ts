/**
 * A task's duration split into active time and time waiting for a human, the one formula behind the
 * run page's header (components/tasks/run/run-meters.tsx), the task list's Duration column and the
 * CLI's `durationMs` / `waitingMs` ("The live header keeps up"). Client-safe, no imports,
 * pure: unit-tested in tests/unit/run-figures.test.ts.
 */

/** A half-open span of time in epoch ms. */
interface Span {
  from: number;
  to: number;
}

/** Total length of `spans` in ms, overlaps counted once (empty or reversed spans count 0). */
export function coveredMs(spans: readonly Span[]): number {
  const sorted = spans.filter((s) => s.to > s.from).sort((a, b) => a.from - b.from);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const s of sorted) {
    if (s.from > end) {
      if (end > start) total += end - start;
      start = s.from;
      end = s.to;
    } else end = Math.max(end, s.to);
  }
  if (end > start) total += end - start;
  return total;
}

/** Length in ms of the parts of `a` that are also in `b` (each list's overlaps counted once). */
function overlapMs(a: readonly Span[], b: readonly Span[]): number {
  return coveredMs(a) + coveredMs(b) - coveredMs([...a, ...b]);
}

/** What the clock needs of a task (task.get's fields). */
export interface ClockTask {
  status: string;
  endedAt: Date | null;
  runs: readonly { startedAt: Date; endedAt: Date | null }[];
  escalations: readonly { status: string; createdAt: Date; decidedAt?: Date | null; appliedAt?: Date | null }[];
}

/** The header's duration split (ms): time the task's runs were working, and time it waited for a human. */
export interface RunClock {
  /** Time covered by the task's runs, less the time an escalation was open in them. */
  activeMs: number;
  /** Time an escalation was open (from its creation to its decision, or to now / the task's end while open). */
  waitingMs: number;
  /** An escalation is open now: the active time stands still and the waiting time runs. */
  waiting: boolean;
  /** A run is working now (the active time runs). */
  running: boolean;
}

const SETTLED = new Set(["completed", "failed", "dead_end", "cancelled"]);

/**
 * Active time and time waiting for a human of a task at `now` (epoch ms; see {@link observedNow}).
 * A run spans its start to its end (an open run of a settled task ends with the task); an
 * escalation's wait spans its creation to its decision (`decidedAt`, else `appliedAt`), or to now
 * (the task's end once settled) while it is open. Active = runs minus waits, so the duration stops
 * while the task waits for a human and goes on when a decision resumes it. Pure.
 */
export function runClock(t: ClockTask, now: number): RunClock {
  const settledAt = SETTLED.has(t.status) ? (t.endedAt?.getTime() ?? null) : null;
  const openEnd = (from: number) => Math.max(from, settledAt ?? now);
  const runs = t.runs.map((r) => {
    const from = r.startedAt.getTime();
    return { from, to: r.endedAt ? r.endedAt.getTime() : openEnd(from) };
  });
  let waiting = false;
  const waits = t.escalations.map((e) => {
    const from = e.createdAt.getTime();
    if (e.status === "open") {
      if (settledAt === null) waiting = true;
      return { from, to: openEnd(from) };
    }
    const end = e.decidedAt ?? e.appliedAt;
    return { from, to: end ? end.getTime() : from };
  });
  return {
    activeMs: Math.max(0, coveredMs(runs) - overlapMs(runs, waits)),
    waitingMs: coveredMs(waits),
    waiting,
    running: !waiting && settledAt === null && t.runs.some((r) => r.endedAt === null),
  };
}

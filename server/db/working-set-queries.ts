import type { WorkingSet } from "../domain/agent-context.ts";
import { diffWorkingSets, type FactChange } from "../domain/checkpoint.ts";
import { AppError } from "../errors.ts";
import type { PrismaClient } from "./client.ts";
import { checkpointWorkingSetJson, escalationFactEditsJson, taskInputJson } from "./json-columns.ts";

/**
 * What caused a working-set change:
 * - `input`: the task's launch facts (`task.input.facts`), at the start of its first run;
 * - `record_fact`: a `record_fact` tool step wrote the key (added, or a new value: changed);
 * - `human_edit`: a handler edited the fact in an escalation (the human step on the escalated run);
 * - `run_start`: a run started (resume, auto resume, fork) from a checkpoint whose working set differs
 *   from the one before — facts recorded after that checkpoint are dropped (removed) or set back
 *   (changed). A run started without a checkpoint sees the launch facts and the latest fact row of
 *   every key, which hold no human edits (those live only in the edited checkpoint).
 * No tool removes a fact: run starts are the only removals today; the diff handles them anyway.
 */
export type WorkingSetChangeCause = "input" | "record_fact" | "human_edit" | "run_start";

/** One change of a task's working set, with the step (or run start) that caused it. */
export interface WorkingSetChange {
  /** Step id of the cause (`tool-3-0`, `human-model-9`); null for `input` and `run_start`. */
  stepId: string | null;
  /** The run the cause belongs to (for `human_edit`: the escalated run, where the human step is). */
  runId: string;
  /** The step's timeline index within its run; -1 = at the run's start, before its first step. */
  stepIndex: number;
  key: string;
  kind: FactChange["kind"];
  /** Value before (absent when `added`). */
  before?: unknown;
  /** Value after (absent when `removed`). */
  after?: unknown;
  /** When it happened: the fact row's createdAt, the decision time, or the run's start. */
  at: Date;
  cause: WorkingSetChangeCause;
  /** For `run_start` and `human_edit`: the checkpoint the (resumed) run started from. */
  checkpointId: string | null;
}

/** A run of the task as the history names it: `ordinal` 1, 2, … in start order. */
export interface WorkingSetRun {
  id: string;
  ordinal: number;
  cause: string;
  status: string;
  fromCheckpointId: string | null;
  /** The checkpoint's number within the task (#1, #2, …), null without one. */
  fromCheckpointSeq: number | null;
  startedAt: Date;
}

/** The replayed history: every change oldest first, the final working set with its blame, the runs. */
export interface WorkingSetReplay {
  runs: WorkingSetRun[];
  changes: WorkingSetChange[];
  /** The working set the latest run works with (key → value), with the change that set each value. */
  current: Map<string, { value: unknown; change: WorkingSetChange }>;
}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const byPrefix = (ws: WorkingSet, prefix: string): WorkingSet =>
  prefix ? Object.fromEntries(Object.entries(ws).filter(([k]) => k.startsWith(prefix))) : { ...ws };

/**
 * Replays the working set of a task across all its runs (resumes and forks included), in the order
 * the runs started, and returns every change with its cause. The working set of a run is (as
 * `startSegment` / `startRun` build it in server/db/checkpoint-repository.ts and run-repository.ts):
 * - from a checkpoint: the checkpoint's `workingSet`, then the run's own `record_fact` rows;
 * - without one: the task's input facts overlaid with the latest fact row of each key (of any run).
 * Between runs the diff (microdiff, via `diffWorkingSets`) of the previous run's working set and the
 * next run's start is a `run_start` change, except keys a handler edited for the run a decision
 * started, which are `human_edit` changes blamed on the human step (`human-<stepId>`). Re-recording
 * a key with an equal value is no change. Keys evolve independently, so `keyPrefix` filters exactly.
 *
 * Cost: one query each for runs, facts (values included), steps of the facts, the start checkpoints
 * and escalations — O(facts of the task); ~1,000 facts is a few milliseconds.
 * @throws AppError NOT_FOUND when the task does not exist.
 */
export async function replayWorkingSet({
  prisma,
  taskId,
  keyPrefix = "",
}: {
  prisma: PrismaClient;
  taskId: string;
  keyPrefix?: string;
}): Promise<WorkingSetReplay> {
  const task = await prisma.task.findUnique({ where: { id: taskId }, select: { input: true, createdAt: true } });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  const [runRows, facts, escalations] = await Promise.all([
    prisma.run.findMany({
      where: { taskId },
      orderBy: [{ startedAt: "asc" }, { id: "asc" }],
      select: { id: true, cause: true, status: true, fromCheckpointId: true, startedAt: true },
    }),
    prisma.fact.findMany({
      where: { taskId, ...(keyPrefix ? { key: { startsWith: keyPrefix } } : {}) },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { runId: true, sourceStepId: true, key: true, value: true, createdAt: true },
    }),
    prisma.escalation.findMany({
      where: { taskId, fromCheckpointForResult: { not: null } },
      select: { id: true, runId: true, stepId: true, factEdits: true, resultRunId: true, fromCheckpointForResult: true, decidedAt: true },
    }),
  ]);
  const startIds = [...new Set(runRows.map((r) => r.fromCheckpointId).filter((id): id is string => id !== null))];
  const checkpoints = startIds.length
    ? await prisma.checkpoint.findMany({
        where: { id: { in: startIds } },
        select: { id: true, seq: true, runId: true, reason: true, afterStepId: true, workingSet: true, createdAt: true },
      })
    : [];
  const cpById = new Map(checkpoints.map((c) => [c.id, c]));
  const stepIds = [...new Set([...facts.map((f) => f.sourceStepId), ...escalations.map((e) => `human-${e.stepId}`), ...checkpoints.map((c) => c.afterStepId)])];
  const steps = stepIds.length
    ? await prisma.step.findMany({ where: { run: { taskId }, stepId: { in: stepIds } }, select: { runId: true, stepId: true, index: true } })
    : [];
  const stepIndex = new Map(steps.map((s) => [`${s.runId}:${s.stepId}`, s.index]));
  const maxIndex = new Map<string, number>();
  for (const s of steps) maxIndex.set(s.runId, Math.max(maxIndex.get(s.runId) ?? -1, s.index));
  // A fact whose step row is missing goes after the run's known steps, in fact order.
  const indexOf = (runId: string, stepId: string): number => {
    const known = stepIndex.get(`${runId}:${stepId}`);
    if (known !== undefined) return known;
    const next = (maxIndex.get(runId) ?? -1) + 1;
    maxIndex.set(runId, next);
    stepIndex.set(`${runId}:${stepId}`, next);
    return next;
  };

  const runs: WorkingSetRun[] = runRows.map((r, i) => ({
    ...r,
    ordinal: i + 1,
    fromCheckpointSeq: r.fromCheckpointId ? (cpById.get(r.fromCheckpointId)?.seq ?? null) : null,
  }));
  const ordinal = new Map(runs.map((r) => [r.id, r.ordinal]));
  const factsByRun = new Map<string, typeof facts>();
  for (const f of facts) {
    const list = factsByRun.get(f.runId);
    if (list) list.push(f);
    else factsByRun.set(f.runId, [f]);
  }
  // Within a run, the step order is the truth (two steps may write in the same millisecond).
  for (const [runId, list] of factsByRun) {
    const keyed = list.map((f, i) => ({ f, i, index: indexOf(runId, f.sourceStepId) }));
    keyed.sort((a, b) => a.index - b.index || a.i - b.i);
    factsByRun.set(
      runId,
      keyed.map((k) => k.f),
    );
  }
  const input = byPrefix(taskInputJson.decode(task.input, taskId).facts ?? {}, keyPrefix);

  /** The working set of the run in progress of the replay (what its agent sees). */
  let state: WorkingSet = {};
  /** Input facts overlaid with the latest fact row of each key: what a run without a checkpoint starts from. */
  const latest: WorkingSet = { ...input };
  const changes: WorkingSetChange[] = [];
  const blame = new Map<string, WorkingSetChange>();
  const emit = (c: FactChange, rest: Omit<WorkingSetChange, "key" | "kind" | "before" | "after">) => {
    const change: WorkingSetChange = {
      key: c.key,
      kind: c.kind,
      ...(c.kind !== "added" ? { before: c.before } : {}),
      ...(c.kind !== "removed" ? { after: c.after } : {}),
      ...rest,
    };
    changes.push(change);
    blame.set(c.key, change);
  };

  for (const run of runs) {
    // 1. The run's start.
    const cp = run.fromCheckpointId ? cpById.get(run.fromCheckpointId) : undefined;
    const start = cp ? byPrefix(checkpointWorkingSetJson.decode(cp.workingSet, cp.id), keyPrefix) : { ...latest };
    const esc = cp ? escalations.find((e) => e.resultRunId === run.id && e.fromCheckpointForResult === cp.id) : undefined;
    const edited = new Set(Object.keys(esc && esc.factEdits !== null ? escalationFactEditsJson.decode(esc.factEdits, esc.id) : {}));
    for (const c of diffWorkingSets(state, start)) {
      if (esc && edited.has(c.key)) {
        const humanStepId = `human-${esc.stepId}`;
        emit(c, {
          stepId: humanStepId,
          runId: esc.runId,
          stepIndex: indexOf(esc.runId, humanStepId),
          at: esc.decidedAt ?? cp!.createdAt,
          cause: "human_edit",
          checkpointId: cp!.id,
        });
      } else if (!esc && cp?.reason === "human_edit") {
        // An edited checkpoint without its escalation row: blame the human step it was taken after.
        emit(c, {
          stepId: cp.afterStepId,
          runId: cp.runId,
          stepIndex: indexOf(cp.runId, cp.afterStepId),
          at: cp.createdAt,
          cause: "human_edit",
          checkpointId: cp.id,
        });
      } else {
        emit(c, {
          stepId: null,
          runId: run.id,
          stepIndex: -1,
          at: run.startedAt,
          cause: cp || run.ordinal > 1 ? "run_start" : "input",
          checkpointId: cp?.id ?? null,
        });
      }
    }
    state = start;
    // 2. The run's own record_fact rows, in step order.
    for (const f of factsByRun.get(run.id) ?? []) {
      latest[f.key] = f.value;
      const [c] = diffWorkingSets(own(state, f.key) ? { [f.key]: state[f.key] } : {}, { [f.key]: f.value });
      state[f.key] = f.value;
      if (c)
        emit(c, {
          stepId: f.sourceStepId,
          runId: run.id,
          stepIndex: indexOf(run.id, f.sourceStepId),
          at: f.createdAt,
          cause: "record_fact",
          checkpointId: null,
        });
    }
  }

  changes.sort((a, b) => compareChange(a, b, ordinal));
  const current = new Map<string, { value: unknown; change: WorkingSetChange }>();
  for (const key of Object.keys(state).sort()) {
    const change = blame.get(key);
    if (change) current.set(key, { value: state[key], change });
  }
  return { runs, changes, current };
}

/** History order: run start order, then step index within the run, then key. */
function compareChange(
  a: Pick<WorkingSetChange, "runId" | "stepIndex" | "key">,
  b: Pick<WorkingSetChange, "runId" | "stepIndex" | "key">,
  ordinal: Map<string, number>,
): number {
  return (ordinal.get(a.runId) ?? 0) - (ordinal.get(b.runId) ?? 0) || a.stepIndex - b.stepIndex || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}

/** Position in the history after which a page starts (exclusive): a change's run, step index and key. */
export interface WorkingSetCursor {
  runId: string;
  stepIndex: number;
  key: string;
}

/**
 * One page of a task's working-set history, oldest first: at most `limit` changes after `cursor`
 * (exclusive; null = from the start), keys starting with `keyPrefix`. `nextCursor` is null on the
 * last page. `total` counts all changes matching the filter, `runs` names the runs changes belong to.
 * @throws AppError NOT_FOUND (task), BAD_INPUT (cursor naming a run of another task).
 */
export async function listWorkingSetHistory({
  prisma,
  taskId,
  keyPrefix = "",
  cursor = null,
  limit,
}: {
  prisma: PrismaClient;
  taskId: string;
  keyPrefix?: string;
  cursor?: WorkingSetCursor | null;
  limit: number;
}): Promise<{ changes: WorkingSetChange[]; nextCursor: WorkingSetCursor | null; total: number; runs: WorkingSetRun[] }> {
  const replay = await replayWorkingSet({ prisma, taskId, keyPrefix });
  const ordinal = new Map(replay.runs.map((r) => [r.id, r.ordinal]));
  if (cursor && !ordinal.has(cursor.runId)) throw new AppError("BAD_INPUT", `cursor.runId: run ${cursor.runId} is not a run of task ${taskId}`);
  const from = cursor ? replay.changes.findIndex((c) => compareChange(c, cursor, ordinal) > 0) : 0;
  const rest = from < 0 ? [] : replay.changes.slice(from);
  const changes = rest.slice(0, limit);
  const last = changes.at(-1);
  return {
    changes,
    nextCursor: rest.length > limit && last ? { runId: last.runId, stepIndex: last.stepIndex, key: last.key } : null,
    total: replay.changes.length,
    runs: replay.runs,
  };
}

/**
 * The working-set changes one step caused (record_fact: its key; a human step: the facts the handler
 * edited), in key order. Empty for a step that changed nothing. @throws AppError NOT_FOUND (task).
 */
export async function listStepWorkingSetChanges({
  prisma,
  taskId,
  runId,
  stepId,
}: {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  stepId: string;
}): Promise<WorkingSetChange[]> {
  const replay = await replayWorkingSet({ prisma, taskId });
  return replay.changes.filter((c) => c.runId === runId && c.stepId === stepId);
}

/**
 * What the run page needs before any history is opened: per step, how many facts it added, changed
 * and removed (for the timeline's "+2 facts" marks; run starts have `stepId` null), the size of the
 * current working set and the number of changes. @throws AppError NOT_FOUND (task).
 */
export async function summariseWorkingSet({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<{
  steps: { runId: string; stepId: string | null; added: number; changed: number; removed: number }[];
  currentSize: number;
  totalChanges: number;
}> {
  const replay = await replayWorkingSet({ prisma, taskId });
  const byStep = new Map<string, { runId: string; stepId: string | null; added: number; changed: number; removed: number }>();
  for (const c of replay.changes) {
    const k = `${c.runId}:${c.stepId ?? ""}`;
    const row = byStep.get(k) ?? { runId: c.runId, stepId: c.stepId, added: 0, changed: 0, removed: 0 };
    row[c.kind] += 1;
    byStep.set(k, row);
  }
  return { steps: [...byStep.values()], currentSize: replay.current.size, totalChanges: replay.changes.length };
}

/**
 * The current working set (what the latest run works with), keys in order, at most `limit` entries
 * with keys after `cursor` (a key, exclusive) and starting with `keyPrefix`; each with the change
 * that set its value (blame). `total` counts the matching keys; `nextCursor` is the `cursor` of the
 * next page (null at the end). @throws AppError NOT_FOUND (task).
 */
export async function listCurrentWorkingSet({
  prisma,
  taskId,
  keyPrefix = "",
  cursor = null,
  limit,
}: {
  prisma: PrismaClient;
  taskId: string;
  keyPrefix?: string;
  cursor?: string | null;
  limit: number;
}): Promise<{ facts: { key: string; value: unknown; change: WorkingSetChange }[]; total: number; nextCursor: string | null }> {
  const replay = await replayWorkingSet({ prisma, taskId, keyPrefix });
  const all = [...replay.current].map(([key, v]) => ({ key, ...v }));
  const rest = cursor === null ? all : all.filter((f) => f.key > cursor);
  const facts = rest.slice(0, limit);
  return { facts, total: all.length, nextCursor: rest.length > limit ? (facts.at(-1)?.key ?? null) : null };
}

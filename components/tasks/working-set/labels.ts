import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";

/** workingSet.history's answer, one of its changes, and one of its runs. */
export type History = inferRouterOutputs<AppRouter>["workingSet"]["history"];
export type Change = History["changes"][number];
export type Run = History["runs"][number];

/** Rows per page of both working-set lists (the server pages them). */
export const PAGE = 200;

/** A run's heading in the history: "Run 2 · resume from checkpoint #3" ("from the beginning" for a later run without one). */
export function runLabel(run: Run | undefined): string {
  if (!run) return "run";
  const from = run.fromCheckpointSeq !== null ? ` from checkpoint #${run.fromCheckpointSeq}` : run.ordinal > 1 ? " from the beginning" : "";
  return `Run ${run.ordinal} · ${run.cause.replace("_", " ")}${from}`;
}

/** What a group of changes was caused by, in words (beside its step id, if any). */
export function changeCauseLabel(c: Change, run: Run | undefined): string {
  if (c.cause === "record_fact") return "record_fact";
  if (c.cause === "human_edit") return "edited by a handler";
  if (c.cause === "input") return "launch input";
  return `run start: the working set of checkpoint #${run?.fromCheckpointSeq ?? "?"} (${run?.cause.replace("_", " ") ?? "resume"})`;
}

/** A group of consecutive changes with one cause (a step, or a run's start); `first` is its first change. */
export interface ChangeGroup {
  id: string;
  first: Change;
  changes: Change[];
}

/** Consecutive changes of one cause (a step, or a run's start) in one group, in order. */
export function groupByStep(changes: Change[]): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  for (const c of changes) {
    const id = `${c.runId}:${c.stepId ?? `start:${c.cause}`}:${c.stepIndex}`;
    const last = groups.at(-1);
    if (last && last.id === id) last.changes.push(c);
    else groups.push({ id, first: c, changes: [c] });
  }
  return groups;
}

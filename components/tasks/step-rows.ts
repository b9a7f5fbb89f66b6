import type { StepTuple } from "@/server/db/task-queries.ts";
import type { TimelineStep } from "./timeline.tsx";

/**
 * Parses task.steps' compact tuples (`rowsJson`) (server/db/task-queries.ts `StepTuple`) back into timeline steps
 * with Dates. Pure; ~1 ms for 5,000 rows.
 */
export function decodeStepRows(data: { runIds: string[]; rowsJson: string } | undefined): TimelineStep[] {
  if (!data) return [];
  const rows = JSON.parse(data.rowsJson) as StepTuple[];
  return rows.map(
    ([
      ri,
      stepId,
      index,
      kind,
      tool,
      status,
      summary,
      error,
      attempts,
      promptTokens,
      cachedTokens,
      completionTokens,
      costUsd,
      checkpointReason,
      startedMs,
      endedMs,
      durationMs,
      argsKey,
    ]) => ({
      runId: data.runIds[ri] ?? "",
      stepId,
      index,
      kind,
      tool,
      status,
      summary,
      error,
      attempts,
      promptTokens,
      cachedTokens,
      completionTokens,
      costUsd,
      checkpointReason,
      startedAt: new Date(startedMs),
      endedAt: endedMs === null ? null : new Date(endedMs),
      durationMs,
      argsKey: argsKey ?? null,
    }),
  );
}

import { stepRowsSchema } from "../../lib/contracts/step-rows.ts";
import type { TimelineStep } from "./timeline.tsx";

/**
 * Parses task.steps' compact tuples (`rowsJson`, lib/contracts/step-rows.ts `stepRowsSchema`) back into
 * timeline steps with Dates. Pure. @throws ZodError naming the position of a tuple that does not match.
 */
export function decodeStepRows(data: { runIds: string[]; rowsJson: string } | undefined): TimelineStep[] {
  if (!data) return [];
  const rows = stepRowsSchema.parse(JSON.parse(data.rowsJson));
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
      effort,
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
      effort: effort ? { level: effort[0], model: effort[1], rule: effort[2] } : null,
    }),
  );
}

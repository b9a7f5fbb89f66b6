import type { PrismaClient } from "../../server/db/client.ts";
import { beginStep, recordModelCall } from "../../server/db/run-repository.ts";

/**
 * A run's model work as the cost triggers see it: `steps` model steps (`model-0`, `model-1`, …,
 * begun in order) and one billed, productive call of `model` on `model-0` that read `promptTokens`
 * prompt tokens (none cached) and wrote none — what the cost, estimate and template figures are
 * computed from (dollars by the profile's price table, through the task_cost triggers).
 */
export async function recordModelTurns({
  prisma,
  runId,
  model,
  steps = 1,
  promptTokens,
}: {
  prisma: PrismaClient;
  runId: string;
  model: string;
  steps?: number;
  promptTokens: number;
}): Promise<void> {
  for (let i = 0; i < steps; i++) await beginStep({ prisma, runId, stepId: `model-${i}`, index: i, kind: "model" });
  await recordModelCall({
    prisma,
    runId,
    stepId: "model-0",
    attempt: 0,
    model,
    promptTokens,
    cachedTokens: 0,
    completionTokens: 0,
    status: "ok",
    httpStatus: 200,
    billed: true,
    cause: "productive",
    estimated: false,
    latencyMs: 1,
  });
}

import type { PrismaClient } from "./client.ts";
import { isJsonObject } from "./json-codec.ts";
import { env } from "../env.ts";
import { describeExecutorRun, type ExecutorRunSnapshot, type ExecutorView } from "../domain/executor-view.ts";

/**
 * Where the app can read the executor's state from: `embedded` when the app's Inngest client points
 * at an executor by URL in signed mode (INNGEST_BASE_URL set, INNGEST_DEV unset: `npm start`'s
 * default, whose executor keeps its state in this PostgreSQL's `executor_*` tables); `inngest`
 * otherwise (INNGEST_DEV: the Inngest dev server; neither: Inngest Cloud), whose state lives in
 * Inngest and is not read here. A self-hosted `inngest start` also sets INNGEST_BASE_URL: it is
 * told apart by finding no executor run for the Longhaul run (see {@link getExecutorView}).
 */
export function executorViewSource(e: { INNGEST_BASE_URL?: string; INNGEST_DEV?: string } = env()): "embedded" | "inngest" {
  return e.INNGEST_BASE_URL && !e.INNGEST_DEV ? "embedded" : "inngest";
}

/**
 * Reads the embedded executor's durable state of the latest segment of Longhaul run `runId`: its
 * executor run (matched on the triggering event's `data.runId`: `longhaul/run.started` and
 * `longhaul/run.continued` carry it; other functions triggered by the run's events, such as
 * cancel-checkpoint on `longhaul/run.cancelled`, are not its segments), queue items, pauses, the step names of its request log
 * (`executor_op.ops`, newest first, last 200 requests), the database clock, and the latest error the
 * app recorded for the step that failed last (its Step row, else its latest failed ModelCall).
 * Returns null when the executor holds no run for it.
 */
export async function readExecutorSnapshot({ prisma, runId }: { prisma: PrismaClient; runId: string }): Promise<ExecutorRunSnapshot | null> {
  // One indexed lookup (executor_run_longhaul_run_id: the expression event->'data'->>'runId').
  const found = await prisma.$queryRaw<
    { id: string; status: string; maxAttempts: number; createdAt: Date; startedAt: Date | null; endedAt: Date | null; error: unknown; segments: bigint }[]
  >`SELECT id, status, "maxAttempts", "createdAt", "startedAt", "endedAt", error, count(*) OVER () AS segments
      FROM executor_run WHERE (event -> 'data' ->> 'runId') = ${runId}
        AND (event ->> 'name') IN ('longhaul/run.started', 'longhaul/run.continued')
      ORDER BY "createdAt" DESC, id DESC LIMIT 1`;
  const run = found[0];
  const segments = Number(run?.segments ?? 0);
  if (!run) return null;
  const [items, pauses, ops, clock] = await Promise.all([
    prisma.executorQueueItem.findMany({
      where: { runId: run.id },
      select: { id: true, kind: true, stepId: true, attempt: true, availableAt: true, leaseUntil: true, payload: true },
      orderBy: { id: "asc" },
    }),
    prisma.executorPause.findMany({ where: { runId: run.id }, select: { kind: true, event: true, hashedId: true, expiresAt: true } }),
    prisma.executorOp.findMany({ where: { runId: run.id, status: 206 }, select: { ops: true }, orderBy: { id: "desc" }, take: 200 }),
    prisma.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`,
  ]);
  const names: Record<string, string> = {};
  let failedStep: string | null = null;
  for (const row of ops) {
    // Read as the untrusted JSON it is (the SDK's 206 answer, stored as sent): an entry that is not
    // an op object is skipped, not dereferenced.
    for (const entry of Array.isArray(row.ops) ? row.ops : []) {
      if (!isJsonObject(entry) || typeof entry.id !== "string" || typeof entry.name !== "string") continue;
      names[entry.id] ??= entry.name;
      if (failedStep === null && entry.op === "StepError") failedStep = entry.name;
    }
  }
  let lastError: string | null = null;
  if (failedStep) {
    const step = await prisma.step.findUnique({ where: { runId_stepId: { runId, stepId: failedStep } }, select: { error: true } });
    lastError = step?.error ?? null;
    if (!lastError) {
      const call = await prisma.modelCall.findFirst({
        where: { runId, stepId: failedStep, status: "error" },
        orderBy: { attempt: "desc" },
        select: { error: true },
      });
      lastError = call?.error ?? null;
    }
  }
  return {
    now: clock[0]?.now ?? new Date(),
    segments,
    run,
    // A view of the queue: an item whose payload is not the object the executor writes shows no hashed id.
    items: items.map(({ id: _id, ...i }) => ({
      ...i,
      hashedId: isJsonObject(i.payload) && typeof i.payload.hashedId === "string" ? i.payload.hashedId : null,
    })),
    pauses,
    names,
    failedStep,
    lastError,
  };
}

/**
 * The executor's view of Longhaul run `runId` (tRPC `task.executorView`): what the engine is doing
 * with its current segment (see describeExecutorRun), or `{available: false, reason}` when the app
 * runs on Inngest (`source` "inngest", default from the env: {@link executorViewSource}), when the
 * executor holds no run for it (self-hosted Inngest, or the executor's housekeeping removed a run
 * ended more than 7 days ago), or when its tables cannot be read. Never throws for those.
 */
export async function getExecutorView({
  prisma,
  runId,
  source = executorViewSource(),
}: {
  prisma: PrismaClient;
  runId: string;
  source?: "embedded" | "inngest";
}): Promise<ExecutorView> {
  if (source === "inngest") {
    return { available: false, reason: "This app runs on Inngest (dev server or Cloud): the run's live state is in Inngest's dashboard." };
  }
  let snapshot: ExecutorRunSnapshot | null;
  try {
    snapshot = await readExecutorSnapshot({ prisma, runId });
  } catch (error) {
    const code = (error as { code?: unknown; meta?: { code?: unknown } }).meta?.code ?? (error as { code?: unknown }).code;
    // 42P01: the executor's tables are not in this database (an app run against Inngest with its own).
    if (code === "42P01" || code === "P2021") return { available: false, reason: "The executor's state is not in this database." };
    throw error;
  }
  if (!snapshot) {
    return {
      available: false,
      reason: "The embedded executor holds no state for this run (it may run on a self-hosted Inngest, or ended long ago).",
    };
  }
  return describeExecutorRun(snapshot);
}

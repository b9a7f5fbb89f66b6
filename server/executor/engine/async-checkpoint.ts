import { crashPoint } from "../../fault-injection.ts";
import { MAX_STEP_OUTPUT_BYTES, TERMINAL, errorText, inTx, retryOnConflict, type CheckpointEntry, type EngineContext, type Op } from "./context.ts";
import { failRun, limitError, lockRun, saveRunState, saveStep } from "./runs.ts";
import { RENEW_CHECKPOINT_LEASE } from "./sql.ts";

/**
 * `POST /v1/checkpoint/{runId}/async` (§2.13): persists every checkpointed step durably, in one
 * transaction, **before** the caller answers 200. Returns "stale" (→ 409) when the queue item
 * `qi_id` is no longer leased or the run is over, so the SDK stops (`StaleDispatchError`).
 */
export async function checkpoint(ctx: EngineContext, runId: string, body: { qi_id?: unknown; steps?: unknown }): Promise<"ok" | "stale"> {
  crashPoint("executor:checkpoint-received");
  const m = typeof body.qi_id === "string" ? /^(\d+)~(.+)$/.exec(body.qi_id) : null;
  const qi = m ? BigInt(m[1]!) : undefined;
  const owner = m ? m[2]! : "";
  const steps = Array.isArray(body.steps) ? (body.steps as Op[]) : [];
  if (qi === undefined) return "stale";
  // A cancel locks the run, then its queue items; this path locks the item, then the run. When
  // PostgreSQL breaks that deadlock by aborting this side, run it again: the attempt wrote nothing,
  // and after the cancel has committed the retry finds the item gone and answers "stale".
  return retryOnConflict(
    () => checkpointOnce(ctx, runId, qi, owner, steps),
    5,
    (error, attempt) => ctx.o.logger.warn(`checkpoint of run ${runId}: ${errorText(error).slice(0, 120)}; retrying (attempt ${attempt})`, { runId }),
  );
}

async function checkpointOnce(ctx: EngineContext, runId: string, qi: bigint, owner: string, steps: Op[]): Promise<"ok" | "stale"> {
  const fast = await checkpointFast(ctx, runId, qi, owner, steps);
  if (fast !== "slow") {
    if (fast.inserted) {
      ctx.o.metrics.steps.inc(fast.inserted);
      crashPoint("executor:after-step-saved");
    }
    return fast.result;
  }
  let saved = 0;
  const result = await inTx(ctx, async (tx) => {
    const item = await tx.$queryRawUnsafe<{ id: bigint }[]>(RENEW_CHECKPOINT_LEASE, qi, runId, ctx.o.leaseMs, owner);
    if (!item.length) return "stale" as const;
    const run = await lockRun(tx, runId);
    if (!run || TERMINAL.has(run.status)) return "stale" as const;
    for (const op of steps) {
      const limit = op.op === "StepRun" || op.op === "StepFailed" ? limitError(run, op) : undefined;
      if (limit) {
        await failRun(ctx, tx, runId, limit);
        return "stale" as const;
      }
      if (op.op === "StepRun") saved += (await saveStep(tx, run, op.id, { data: op.data ?? null }, op.displayName ?? op.name ?? "")) ? 1 : 0;
      else if (op.op === "StepFailed") saved += (await saveStep(tx, run, op.id, { error: op.error ?? null }, op.displayName ?? op.name ?? "")) ? 1 : 0;
      else ctx.o.logger.warn(`run ${runId}: checkpointed op ${op.op} ignored (only StepRun/StepFailed are checkpointed)`, { runId, stepId: op.id });
    }
    await saveRunState(tx, run);
    return "ok" as const;
  });
  if (saved) {
    ctx.o.metrics.steps.inc(saved);
    crashPoint("executor:after-step-saved");
  }
  return result;
}

/**
 * The checkpoint hot path: one entry of a **group-committed batch statement** (checkpoint-batch.ts,
 * `CHECKPOINT_BATCH` in sql.ts) that renews the lease of queue item `qi` (only if still leased), locks
 * the run (only if not ended), inserts the StepRun/StepFailed results that do not exist yet with
 * consecutive `seq`, and advances `nextSeq` — for this run and the others checkpointing at the same
 * moment, in one commit. Resolves after that commit. Returns "slow" when a limit may be hit or an op
 * needs the general path (then {@link checkpoint} uses the transaction-based path, which also fails
 * the run on a limit).
 */
async function checkpointFast(
  ctx: EngineContext,
  runId: string,
  qi: bigint,
  owner: string,
  steps: Op[],
): Promise<{ result: "ok" | "stale"; inserted: number } | "slow"> {
  const rows: CheckpointEntry["rows"] = [];
  let bytes = 0;
  for (const [ord, op] of steps.entries()) {
    if (op.op !== "StepRun" && op.op !== "StepFailed") return "slow";
    const value = op.op === "StepRun" ? { data: op.data === undefined ? null : op.data } : { error: op.error ?? null };
    const size = Buffer.byteLength(JSON.stringify(value));
    if (size > MAX_STEP_OUTPUT_BYTES) return "slow";
    bytes += size;
    rows.push({ ord, hashedId: op.id, value, name: op.displayName ?? op.name ?? "" });
  }
  const r = await ctx.checkpoints.submit({ runId, qi, owner, rows, bytes });
  if (!r.item) return { result: "stale", inserted: 0 };
  if (!r.run) {
    // Run ended (→ stale) or the step limit would be exceeded (→ slow path fails the run).
    const run = await ctx.o.db.executorRun.findUnique({ where: { id: runId }, select: { status: true } });
    return run && !TERMINAL.has(run.status) ? "slow" : { result: "stale", inserted: 0 };
  }
  return { result: "ok", inserted: r.inserted };
}

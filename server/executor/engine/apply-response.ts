import { Prisma } from "../../db/client.ts";
import { crashPoint } from "../../fault-injection.ts";
import { backoffDelayMs, MAX_SLEEP_MS, newUlid, parseDurationMs, parseRetryAfter, sleepUntil } from "../util.ts";
import {
  DEFAULT_WAIT_MS,
  MAX_STEP_OUTPUT_BYTES,
  MAX_STEPS_PER_RUN,
  TERMINAL,
  discoveryOf,
  errorMessageOf,
  inTx,
  type EngineContext,
  type ExecutorEventPayload,
  type Op,
  type QueueItem,
  type RunRow,
  type Tx,
} from "./context.ts";
import { ownItem } from "./leases.ts";
import { completeRun, enqueue, failRun, limitError, lockRun, saveRunState, saveStep, startRun } from "./runs.ts";
import type { LogFields } from "../logger.ts";
import { RUN_COMPLETE_FAST, STEP_RUN_FAST } from "./sql.ts";
import { isJsonObject } from "../../db/json-codec.ts";
import { executorEventDataJson, executorEventRawJson, executorFunctionConfigJson, executorOpOpsJson } from "../json-columns.ts";

/**
 * What an opcode handler works on while one 206 response is applied in one transaction. Handlers
 * add to `completed` (step results memoized) and `added` (asynchronous ops now pending), or end
 * the request by returning an outcome text (the run was ended or the item rescheduled).
 */
interface ApplyState {
  ctx: EngineContext;
  tx: Tx;
  item: QueueItem;
  run: RunRow;
  noRetryHeader: string | null;
  canRetry: boolean;
  versionUpdate: { requestVersion?: number };
  completed: string[];
  added: string[];
  discoveryRequested: boolean;
  savedSteps: number;
  /** Reschedules the request item with attempt+1 (backoff or retry-after); returns the outcome text. */
  retryItem: (reason: string) => Promise<string>;
  /** Deletes the request item and fails the run with `error`; returns `outcome`. */
  failWith: (error: unknown, outcome: string) => Promise<string>;
}

/** An opcode handler: undefined = go on with the next op; a string = the request is over, with this outcome. */
type OpHandler = (s: ApplyState, op: Op, name: string) => Promise<string | undefined>;

/** The opcodes the executor implements (docs/INNGEST-PROTOCOL.md §2.5; Go `executor.go:3871-3940`). Anything else fails the run. */
const OP_HANDLERS: Record<string, OpHandler> = {
  StepRun: async (s, op, name) => {
    s.savedSteps += (await saveStep(s.tx, s.run, op.id, { data: op.data === undefined ? null : op.data }, name)) ? 1 : 0;
    s.completed.push(op.id);
    return undefined;
  },
  StepError: async (s, op, name) => {
    const noRetry = s.noRetryHeader === "true";
    // Re-run the same request with attempt+1 (§2.8). Nothing is saved for this step.
    if (!noRetry && s.canRetry) return s.retryItem(`step ${name} error: ${errorMessageOf(op.error)}`);
    s.savedSteps += (await saveStep(s.tx, s.run, op.id, { error: op.error ?? null }, name)) ? 1 : 0;
    s.completed.push(op.id);
    return undefined;
  },
  StepFailed: async (s, op, name) => {
    s.savedSteps += (await saveStep(s.tx, s.run, op.id, { error: op.error ?? null }, name)) ? 1 : 0;
    s.completed.push(op.id);
    return undefined;
  },
  StepPlanned: async (s, op) => {
    await enqueue(s.tx, { jobId: `${s.run.id}-${op.id}-plan`, runId: s.run.id, kind: "step", stepId: op.id });
    s.added.push(op.id);
    return undefined;
  },
  Sleep: async (s, op) => {
    const until = sleepUntil({ name: op.name, opts: op.opts });
    if (!until) {
      await s.tx.executorQueueItem.delete({ where: { id: s.item.id } });
      await failRun(s.ctx, s.tx, s.run.id, {
        name: "ProtocolError",
        message: `Sleep op ${op.id}: unparseable duration ${JSON.stringify(op.opts?.duration ?? op.name ?? null)}`,
      });
      return "bad sleep: run failed";
    }
    await enqueue(s.tx, { jobId: `${s.run.id}-${op.id}-sleep`, runId: s.run.id, kind: "sleepWake", availableAt: until, payload: { hashedId: op.id } });
    s.added.push(op.id);
    return undefined;
  },
  WaitForEvent: async (s, op) => {
    const timeoutMs = Math.min(parseDurationMs(op.opts?.timeout) ?? DEFAULT_WAIT_MS, MAX_SLEEP_MS);
    const expiresAt = new Date(Date.now() + timeoutMs);
    const pauseId = `${s.run.id}-${op.id}`;
    const eventName = typeof op.opts?.event === "string" ? op.opts.event : String(op.name);
    await s.tx.executorPause.createMany({
      data: [
        {
          id: pauseId,
          runId: s.run.id,
          kind: "wait",
          hashedId: op.id,
          event: eventName,
          expression: typeof op.opts?.if === "string" ? op.opts.if : null,
          expiresAt,
        },
      ],
      skipDuplicates: true,
    });
    await enqueue(s.tx, {
      jobId: `${s.run.id}-${op.id}-timeout`,
      runId: s.run.id,
      kind: "pauseTimeout",
      availableAt: expiresAt,
      payload: { pauseId, hashedId: op.id },
    });
    s.added.push(op.id);
    return undefined;
  },
  InvokeFunction: async (s, op, name) => {
    // step.invoke (docs/INNGEST-PROTOCOL.md §7.1 item 12): start the target with the data, wait for its
    // inngest/function.finished (a pause of kind "invoke"), resolve with its output or error, or
    // with an InngestInvokeTimeoutError at opts.timeout.
    const targetId = typeof op.opts?.function_id === "string" ? op.opts.function_id : "";
    const target = targetId ? await s.tx.executorFunction.findUnique({ where: { id: targetId }, select: { id: true, config: true, retries: true } }) : null;
    if (!target) {
      s.savedSteps += (await saveStep(
        s.tx,
        s.run,
        op.id,
        { error: { name: "Error", message: `step.invoke ${name}: function "${targetId}" is not registered with the executor` } },
        name,
      ))
        ? 1
        : 0;
      s.completed.push(op.id);
      return undefined;
    }
    // The SDK's invoke payload ({data?, user?, v?}), a wire shape: what is not an object is taken as none.
    const payload = isJsonObject(op.opts?.payload) ? op.opts.payload : {};
    const timeoutMs = Math.min(parseDurationMs(op.opts?.timeout) ?? MAX_SLEEP_MS, MAX_SLEEP_MS);
    const expiresAt = new Date(Date.now() + timeoutMs);
    const childEvent: ExecutorEventPayload = {
      name: "inngest/function.invoked",
      data: {
        ...(isJsonObject(payload.data) ? payload.data : {}),
        _inngest: { source_fn_id: s.run.functionId, source_run_id: s.run.id, invoke_correlation_id: `${s.run.id}.${op.id}`, expire: expiresAt.getTime() },
      },
      id: newUlid(),
      ts: Date.now(),
      user: payload.user && typeof payload.user === "object" ? payload.user : {},
      ...(typeof payload.v === "string" ? { v: payload.v } : {}),
    };
    await s.tx.executorEvent.createMany({
      data: [
        {
          id: childEvent.id,
          name: childEvent.name,
          data: executorEventDataJson.encode(childEvent.data),
          raw: executorEventRawJson.encode(childEvent),
          ts: BigInt(childEvent.ts),
        },
      ],
      skipDuplicates: true,
    });
    const childRunId = await startRun(s.ctx, s.tx, target.id, executorFunctionConfigJson.decode(target.config, target.id), target.retries, childEvent, {
      skipIdempotency: true,
    });
    const pauseId = `${s.run.id}-${op.id}`;
    await s.tx.executorPause.createMany({
      data: [
        {
          id: pauseId,
          runId: s.run.id,
          kind: "invoke",
          hashedId: op.id,
          event: "inngest/function.finished",
          expression: `async.data.run_id == ${JSON.stringify(childRunId)}`,
          expiresAt,
        },
      ],
      skipDuplicates: true,
    });
    await enqueue(s.tx, {
      jobId: `${s.run.id}-${op.id}-timeout`,
      runId: s.run.id,
      kind: "pauseTimeout",
      availableAt: expiresAt,
      payload: { pauseId, hashedId: op.id, invoke: true },
    });
    s.added.push(op.id);
    return undefined;
  },
  DiscoveryRequest: async (s) => {
    // Checkpointing maxRuntime reached: the SDK asks for a fresh discovery request (§2.5).
    s.discoveryRequested = true;
    return undefined;
  },
  RunComplete: async (s, op) => {
    await s.tx.executorQueueItem.delete({ where: { id: s.item.id } });
    await saveRunState(s.tx, s.run, s.versionUpdate);
    await completeRun(s.ctx, s.tx, s.run.id, op.data);
    return `RunComplete (${s.savedSteps} buffered step(s) saved)`;
  },
};

/** Opcodes that leave a step pending (fan-in); more than one in a response forces step planning. */
const ASYNC_OPS = new Set(["StepPlanned", "Sleep", "WaitForEvent", "InvokeFunction"]);
/** Opcodes that memoize a step result (subject to the step-count and output-size limits). */
const RESULT_OPS = new Set(["StepRun", "StepFailed", "StepError"]);

/**
 * Hot path for the commonest response, a discovery answered with a single `StepRun` (§2.7
 * immediate execution), in **one SQL statement**: deletes the request item (only while this
 * process holds its lease), memoizes the result (never overwriting), advances `nextSeq`, records
 * the request version, enqueues the next discovery and logs the op — all or nothing. Returns the
 * number of steps inserted (0 or 1), or -1 when the general path must handle it (lease lost, run
 * ended, fan-out open, limits), in which case nothing was written.
 */
async function stepRunFast(ctx: EngineContext, item: QueueItem, op: Op, requestVersion: number | null, durationMs: number): Promise<number> {
  const value = { data: op.data === undefined ? null : op.data };
  const json = JSON.stringify(value);
  if (Buffer.byteLength(json) > MAX_STEP_OUTPUT_BYTES) return -1;
  const name = op.displayName ?? op.name ?? op.userland?.id ?? "";
  const res = await ctx.o.hot.query<{ run: string; inserted: string }>("lh_step_run_fast", STEP_RUN_FAST, [
    item.id,
    item.owner,
    item.runId,
    op.id,
    json,
    name,
    requestVersion,
    `${item.runId}-${op.id}-discover`,
    JSON.stringify([{ id: op.id, op: op.op, name }]),
    MAX_STEPS_PER_RUN,
    durationMs,
  ]);
  const r = res[0];
  if (!r || Number(r.run) === 0) return -1;
  ctx.wake();
  return Number(r.inserted);
}

/**
 * Hot path for the end of a run (HTTP 200, or a 206 holding only `RunComplete`, as async
 * checkpointing ends), in **one SQL statement** ({@link RUN_COMPLETE_FAST}): the same writes as
 * the general path's completeRun when nothing listens for `inngest/function.finished`. Returns
 * false (nothing written) when the general path must handle it.
 */
async function runCompleteFast(
  ctx: EngineContext,
  item: QueueItem,
  status: number,
  output: unknown,
  ops: Op[],
  requestVersion: number | null,
  durationMs: number,
): Promise<boolean> {
  const json = JSON.stringify(output === undefined ? null : output);
  if (Buffer.byteLength(json) > MAX_STEP_OUTPUT_BYTES) return false;
  const res = await ctx.o.hot.query<{ run: string }>("lh_run_complete_fast", RUN_COMPLETE_FAST, [
    item.id,
    item.owner,
    item.runId,
    json,
    requestVersion,
    newUlid(),
    Date.now(),
    item.kind,
    item.stepId,
    status,
    status === 206 ? JSON.stringify(ops.map((x) => ({ id: x.id, op: x.op, name: x.displayName ?? x.name }))) : null,
    durationMs,
  ]);
  if (Number(res[0]?.run ?? 0) === 0) return false;
  ctx.o.metrics.runsEnded.inc({ status: "completed" });
  ctx.o.logger.info(`run ${item.runId} completed`, { runId: item.runId });
  return true;
}

/**
 * Applies one SDK response (docs/INNGEST-PROTOCOL.md §2.4–2.5, §2.7–2.8) in **one transaction**: step
 * results are memoized (never overwritten) together with the follow-up queue item, the request item
 * is deleted or rescheduled, and the run state updated. A lost lease aborts without writing.
 * `status` 0 stands for "no usable response" (a request timeout, or a response refused for its
 * signature), counted as an attempt; `failure` names it in the failed-requests metric (default
 * `timeout`).
 */
export async function applyResponse(
  ctx: EngineContext,
  item: QueueItem,
  status: number,
  headers: Headers,
  body: unknown,
  started: number,
  fnId: string,
  failure = "timeout",
): Promise<void> {
  const { o } = ctx;
  const noRetryHeader = headers.get("x-inngest-no-retry");
  const retryAt = parseRetryAfter(headers.get("retry-after"));
  const reqVersion = Number(headers.get("x-inngest-req-version"));
  const versionUpdate = Number.isInteger(reqVersion) && reqVersion > 0 ? { requestVersion: reqVersion } : {};
  const ops = status === 206 && Array.isArray(body) ? (body as Op[]) : [];
  o.metrics.requests.inc({ status: String(status) });
  if (status === 0) o.metrics.failedRequests.inc({ reason: failure });
  else if (status >= 400) o.metrics.failedRequests.inc({ reason: `http_${status}` });
  if (ops.some((x) => x.op === "StepRun" || x.op === "StepFailed")) crashPoint("executor:before-step-saved");
  let savedSteps = 0;
  let outcome = "";
  const fields = (): LogFields => ({
    runId: item.runId,
    stepId: item.stepId,
    fnId,
    jobId: item.jobId,
    attempt: item.attempt,
    status,
    durationMs: Date.now() - started,
  });
  const only = ops.length === 1 ? ops[0]! : undefined;
  if (only?.op === "StepRun" && discoveryOf(item)) {
    const fast = await stepRunFast(ctx, item, only, Number.isInteger(reqVersion) && reqVersion > 0 ? reqVersion : null, Date.now() - started);
    if (fast >= 0) {
      if (fast > 0) {
        o.metrics.steps.inc(fast);
        crashPoint("executor:after-step-saved");
      }
      o.logger.info(
        `run ${item.runId} ${fnId} discovery attempt ${item.attempt} → 206 StepRun ${only.displayName ?? only.name ?? ""} saved (${Date.now() - started} ms)`,
        { ...fields(), savedStepId: only.id },
      );
      return;
    }
  }
  const completing = status === 200 ? body : only?.op === "RunComplete" ? only.data : undefined;
  if (
    (status === 200 || only?.op === "RunComplete") &&
    (await runCompleteFast(ctx, item, status, completing, ops, Number.isInteger(reqVersion) && reqVersion > 0 ? reqVersion : null, Date.now() - started))
  ) {
    o.logger.info(
      `run ${item.runId} ${fnId} ${discoveryOf(item) ? "discovery" : `step ${item.stepId.slice(0, 8)}`} attempt ${item.attempt} → ${status} run complete (${Date.now() - started} ms)`,
      fields(),
    );
    return;
  }
  await inTx(ctx, async (tx) => {
    if (!(await ownItem(tx, item))) {
      outcome = "lease lost; response discarded";
      return;
    }
    const run = await lockRun(tx, item.runId);
    if (!run || TERMINAL.has(run.status)) {
      await tx.executorQueueItem.delete({ where: { id: item.id } });
      outcome = "run already ended; response discarded";
      return;
    }
    await tx.executorOp.create({
      data: {
        runId: run.id,
        kind: item.kind,
        stepId: item.stepId,
        status,
        ops: status === 206 ? executorOpOpsJson.encode(ops.map((x) => ({ id: x.id, op: x.op, name: x.displayName ?? x.name }))) : Prisma.DbNull,
        durationMs: Date.now() - started,
      },
    });
    const s: ApplyState = {
      ctx,
      tx,
      item,
      run,
      noRetryHeader,
      canRetry: item.attempt + 1 < run.maxAttempts,
      versionUpdate,
      completed: [],
      added: [],
      discoveryRequested: false,
      savedSteps: 0,
      retryItem: async (reason) => {
        const at = retryAt ?? new Date(Date.now() + backoffDelayMs(item.attempt, o.backoffMs, o.jitter));
        await tx.executorQueueItem.update({ where: { id: item.id }, data: { attempt: item.attempt + 1, availableAt: at, leaseUntil: null, owner: null } });
        await saveRunState(tx, run, versionUpdate);
        o.metrics.retries.inc({ reason: status === 206 ? "step_error" : status === 0 ? failure : "http_error" });
        return `${reason}; retry attempt ${item.attempt + 1}/${run.maxAttempts - 1} at ${at.toISOString()}`;
      },
      failWith: async (error, text) => {
        await tx.executorQueueItem.delete({ where: { id: item.id } });
        await saveRunState(tx, run, versionUpdate);
        await failRun(ctx, tx, run.id, error);
        return text;
      },
    };
    outcome = await applyInTx(s, status, body, ops);
    savedSteps = s.savedSteps;
  });
  if (savedSteps) {
    o.metrics.steps.inc(savedSteps);
    crashPoint("executor:after-step-saved");
  }
  o.logger[status === 0 || status >= 400 ? "warn" : "info"](
    `run ${item.runId} ${fnId} ${item.stepId === "step" ? "discovery" : `step ${item.stepId.slice(0, 8)}`} attempt ${item.attempt} → ${status} ${outcome} (${Date.now() - started} ms)`,
    fields(),
  );
}

/** The `name` of an error-shaped body, or "no response". */
function errorNameOf(body: unknown): string {
  const name = body && typeof body === "object" ? (body as { name?: unknown }).name : undefined;
  return typeof name === "string" ? name : "no response";
}

/** The general path of {@link applyResponse}, inside its transaction with the item owned and the run locked. Returns the outcome text. */
async function applyInTx(s: ApplyState, status: number, body: unknown, ops: Op[]): Promise<string> {
  const { tx, item, run } = s;
  if (status === 200) {
    await tx.executorQueueItem.delete({ where: { id: item.id } });
    await saveRunState(tx, run, s.versionUpdate);
    await completeRun(s.ctx, tx, run.id, body);
    return "function returned";
  }
  if (status !== 206) {
    // Function-level error. An explicit x-inngest-no-retry wins; otherwise 4xx = no retry (Go util.go:45-92).
    const noRetry = s.noRetryHeader !== null ? s.noRetryHeader === "true" : status >= 400 && status < 500;
    if (!noRetry && s.canRetry) return s.retryItem(status === 0 ? errorMessageOf(body) : `HTTP ${status} ${errorMessageOf(body)}`);
    const error = status === 401 ? { name: "Unauthorized", message: "the app rejected the executor's signature (check INNGEST_SIGNING_KEY)" } : body;
    return s.failWith(error, status === 0 ? `${errorNameOf(body)}: run failed` : `HTTP ${status}: run failed`);
  }
  if (!Array.isArray(body) || ops.length === 0) {
    await tx.executorQueueItem.delete({ where: { id: item.id } });
    await failRun(s.ctx, tx, run.id, { name: "ProtocolError", message: "206 response without opcodes" });
    return "empty 206: run failed";
  }
  const asyncOps = ops.filter((x) => ASYNC_OPS.has(x.op)).length;
  for (const op of ops) {
    const name = op.displayName ?? op.name ?? op.userland?.id ?? "";
    const limit = RESULT_OPS.has(op.op) ? limitError(run, op) : undefined;
    if (limit) return s.failWith(limit, `${String(limit.name)}: run failed`);
    const handler = OP_HANDLERS[op.op];
    if (!handler) {
      // Unknown or unsupported opcode: a run error, never a silent skip (§7.2).
      return s.failWith(
        { name: "UnsupportedOpcode", message: `opcode ${op.op} (step ${name}) is not supported by the embedded executor` },
        `unsupported opcode ${op.op}: run failed`,
      );
    }
    const done = await handler(s, op, name);
    if (done !== undefined) return done;
  }
  await tx.executorQueueItem.delete({ where: { id: item.id } });
  const pending = new Set(run.pending);
  for (const id of s.added) pending.add(id);
  for (const id of s.completed) pending.delete(id);
  if (!discoveryOf(item)) pending.delete(item.stepId);
  run.pending = [...pending];
  if (asyncOps > 1) run.forceStepPlan = true;
  if (run.pending.length === 0 && (s.completed.length > 0 || s.added.length === 0 || s.discoveryRequested)) {
    run.forceStepPlan = false;
    const last = s.completed[s.completed.length - 1];
    const jobId = last ? `${run.id}-${last}-discover` : `${run.id}-seq${run.nextSeq}-${item.id}-discover`;
    await enqueue(tx, { jobId, runId: run.id, kind: "discover" });
  }
  await saveRunState(tx, run, s.versionUpdate);
  return `${ops.map((x) => x.op).join(",")}; pending ${run.pending.length}`;
}

import { evalCelValue } from "../cel.ts";
import { executorFunctionConfigJson } from "../json-columns.ts";
import { normalizeConcurrency, type FunctionConfig } from "../registry.ts";
import { canonicalJson, newUlid, responseSignatureProblem, signBody, stableUuid } from "../util.ts";
import { applyResponse } from "./apply-response.ts";
import { TERMINAL, errorText, inTx, type EngineContext, type QueueItem } from "./context.ts";
import { postJson } from "./http.ts";
import { ownItem, release } from "./leases.ts";
import { failRun } from "./runs.ts";
import type { LogFields } from "../logger.ts";
import { LOAD_RUN_FOR_CALL, MARK_RUNNING } from "./sql.ts";

/** The run as loaded for one request: run state, its function and its memoized steps in stack order. */
interface CallRun {
  id: string;
  status: string;
  event: unknown;
  events: unknown;
  requestVersion: number;
  forceStepPlan: boolean;
  maxAttempts: number;
  functionId: string;
  fnId: string | null;
  fnUrl: string | null;
  fnConfig: unknown;
  steps: { h: string; v: unknown }[] | null;
}

/** Sends one request (discovery or a planned step) to the app and applies the response. */
export async function call(ctx: EngineContext, item: QueueItem): Promise<void> {
  const db = ctx.o.db;
  const rows = await ctx.o.hot.query<CallRun>("lh_load_run_for_call", LOAD_RUN_FOR_CALL, [item.runId]);
  const run = rows[0];
  if (!run || TERMINAL.has(run.status)) {
    await db.executorQueueItem.deleteMany({ where: { id: item.id, owner: item.owner } });
    return;
  }
  const fn = run.fnId && run.fnUrl ? { id: run.fnId, url: run.fnUrl, config: run.fnConfig } : undefined;
  if (!fn) {
    await inTx(ctx, async (tx) => {
      if (await ownItem(tx, item)) await failRun(ctx, tx, run.id, { name: "FunctionNotFound", message: `function ${run.functionId} is no longer registered` });
    });
    return;
  }
  const config = executorFunctionConfigJson.decode(fn.config, fn.id);
  // Concurrency (single executor process): a per-function / per-key limit on items in flight.
  const inflight = ctx.state.inflightByKey;
  const keys = concurrencyKeys(fn.id, config, run.event);
  if (keys.some((k) => (inflight.get(k.key) ?? 0) >= k.limit)) {
    await release(ctx, item, 100);
    return;
  }
  for (const k of keys) inflight.set(k.key, (inflight.get(k.key) ?? 0) + 1);
  try {
    await callLimited(ctx, item, run, fn.url, fn.id);
  } finally {
    for (const k of keys) {
      const n = (inflight.get(k.key) ?? 1) - 1;
      if (n <= 0) inflight.delete(k.key);
      else inflight.set(k.key, n);
    }
  }
}

function concurrencyKeys(fnId: string, config: FunctionConfig, event: unknown): { key: string; limit: number }[] {
  return normalizeConcurrency(config.concurrency)
    .filter((c) => c.limit > 0)
    .map((c, i) => {
      const value = c.key ? evalCelValue(c.key, { event }) : "";
      return { key: `${fnId}#${i}#${typeof value === "string" ? value : JSON.stringify(value ?? null)}`, limit: c.limit };
    });
}

async function callLimited(ctx: EngineContext, item: QueueItem, run: CallRun, fnUrl: string, fnId: string): Promise<void> {
  const { o, state } = ctx;
  const db = o.db;
  if (run.status === "queued") await ctx.o.hot.query("lh_mark_running", MARK_RUNNING, [run.id]);
  const stepRows = run.steps ?? [];
  const steps: Record<string, unknown> = {};
  for (const s of stepRows) steps[s.h] = s.v;
  const stack = stepRows.map((s) => s.h);
  const discovery = item.stepId === "step";
  const checkpointing = o.checkpointing && discovery && !run.forceStepPlan;
  const requestId = newUlid();
  const body = {
    event: run.event,
    events: run.events,
    steps,
    ctx: {
      run_id: run.id,
      attempt: item.attempt,
      max_attempts: run.maxAttempts,
      disable_immediate_execution: run.forceStepPlan || !discovery,
      use_api: false,
      stack: { stack, current: stack.length },
      // qi_id names this dispatch, not just the queue item: `<item id>~<lease owner>`. A request left
      // running by a dead executor must not checkpoint into a lease a restarted executor has taken
      // since (its steps would run twice): a different owner is stale (409).
      ...(checkpointing ? { fn_id: stableUuid(fnId), qi_id: `${item.id}~${item.owner}` } : {}),
    },
    version: run.requestVersion,
    request_id: requestId,
    job_id: item.jobId,
  };
  const text = canonicalJson(body);
  const url = new URL(fnUrl);
  url.searchParams.set("fnId", fnId);
  url.searchParams.set("stepId", item.stepId);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-run-id": run.id,
    "x-request-id": requestId,
    "x-inngest-job-id": item.jobId,
    "x-inngest-step-id": item.stepId,
    "x-inngest-server-kind": o.serverKind,
  };
  if (o.signingKey) headers["x-inngest-signature"] = signBody(text, o.signingKey);
  if (run.requestVersion >= 0) headers["x-inngest-req-version"] = String(run.requestVersion);

  const controller = new AbortController();
  state.controllers.add(controller);
  const timeout = setTimeout(() => controller.abort(new Error("request timeout")), o.requestTimeoutMs);
  const started = Date.now();
  let status: number;
  let resHeaders: Headers;
  let resText: string;
  try {
    const res = await postJson(url, headers, text, controller.signal);
    status = res.status;
    resHeaders = res.headers;
    resText = res.text;
  } catch (error) {
    clearTimeout(timeout);
    state.controllers.delete(controller);
    if (!state.running) {
      await release(ctx, item, 0).catch(() => {});
      return;
    }
    if (controller.signal.aborted) {
      // Timed out: counts as an attempt, like a function-level error.
      await applyResponse(ctx, item, 0, new Headers(), { name: "RequestTimeout", message: `no response within ${o.requestTimeoutMs} ms` }, started, fnId);
      return;
    }
    // The app could not be reached or the connection broke before a response (web down, restarting):
    // the step was not (reliably) attempted, so the attempt is not used up; retry the same item shortly,
    // until the app has been unreachable for appGoneMs: then it is gone for good and the run fails.
    const now = Date.now();
    const since = Number(item.payload.unreachableSince ?? now);
    if (now - since >= o.appGoneMs) {
      const failure = {
        name: "AppUnreachable",
        message: `the app at ${url.origin} has not answered for ${formatDuration(now - since)} (since ${new Date(since).toISOString()}; last: ${errorText(error)}); the run is failed instead of retried forever (EXECUTOR_APP_GONE_MS = ${o.appGoneMs})`,
      };
      await inTx(ctx, async (tx) => {
        if (await ownItem(tx, item)) await failRun(ctx, tx, run.id, failure);
      });
      ctx.wake();
      return;
    }
    o.metrics.failedRequests.inc({ reason: "unreachable" });
    const wait = Math.min(5000, 250 * 2 ** Math.min(5, Number(item.payload.connectFailures ?? 0)));
    logUnreachable(
      ctx,
      url.origin,
      `run ${run.id}: app unreachable at ${url.origin} (${errorText(error)}); retrying ${item.jobId} in ${wait} ms, attempt ${item.attempt} kept`,
      { runId: run.id, stepId: item.stepId, fnId, jobId: item.jobId, attempt: item.attempt },
    );
    await db.executorQueueItem.updateMany({
      where: { id: item.id, owner: item.owner },
      data: {
        leaseUntil: null,
        owner: null,
        availableAt: new Date(now + wait),
        payload: { ...item.payload, connectFailures: Number(item.payload.connectFailures ?? 0) + 1, unreachableSince: since },
      },
    });
    return;
  }
  clearTimeout(timeout);
  state.controllers.delete(controller);
  // Signed mode: the SDK signs every response to a signed request (docs/INNGEST-PROTOCOL.md §2.4, §2.9);
  // an unsigned or forged one is not applied — it counts as a failed attempt (retried with backoff,
  // the run failed after the last). The 401 the SDK answers to a request it could not verify is
  // unsigned by design and handled as such (applyResponse: run failed, check INNGEST_SIGNING_KEY).
  // Dev mode verifies nothing, as the dev server (the SDK in dev mode does not sign).
  if (o.serverKind === "cloud" && o.signingKey && status !== 401) {
    const problem = responseSignatureProblem(resHeaders.get("x-inngest-signature"), resText, o.signingKey);
    if (problem) {
      const error = {
        name: "InvalidResponseSignature",
        message: `${problem}: the HTTP ${status} response of ${url.origin}${url.pathname} was refused (is INNGEST_SIGNING_KEY the same in the app and the executor? is something between them rewriting responses?)`,
      };
      await applyResponse(ctx, item, 0, new Headers(), error, started, fnId, "bad_signature");
      return;
    }
  }
  let parsed: unknown = null;
  try {
    parsed = resText ? JSON.parse(resText) : null;
  } catch {
    parsed = { name: "InvalidResponse", message: `non-JSON response body (HTTP ${status}): ${resText.slice(0, 200)}` };
    if (status === 200 || status === 206) status = 500;
  }
  await applyResponse(ctx, item, status, resHeaders, parsed, started, fnId);
}

/** Interval between two "app unreachable" log lines for the same app origin, ms. */
export const UNREACHABLE_LOG_INTERVAL_MS = 60_000;

/** Writes `line` at most once per {@link UNREACHABLE_LOG_INTERVAL_MS} per app origin, with the count of lines held back since. */
function logUnreachable(ctx: EngineContext, origin: string, line: string, fields: LogFields): void {
  const now = Date.now();
  const entry = ctx.state.unreachableLog.get(origin);
  if (entry && now - entry.at < UNREACHABLE_LOG_INTERVAL_MS) {
    entry.suppressed += 1;
    return;
  }
  ctx.o.logger.warn(
    entry?.suppressed ? `${line} (${entry.suppressed} similar line(s) for ${origin} held back in the last ${Math.round((now - entry.at) / 1000)} s)` : line,
    { ...fields, suppressed: entry?.suppressed ?? 0 },
  );
  ctx.state.unreachableLog.set(origin, { at: now, suppressed: 0 });
}

/** `90061000` → `"1d 1h 1m 1s"`; under a second: `"<n> ms"`. */
function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const parts: string[] = [];
  let s = Math.floor(ms / 1000);
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n) parts.push(`${n}${unit}`);
  }
  return parts.join(" ");
}

import type { Prisma, PrismaClient } from "../../db/client.ts";
import type { ExecutorMetrics } from "./metrics.ts";
import type { ExecutorLogger } from "../logger.ts";
import type { OutageLog } from "./outage-log.ts";
import type { HotSql } from "./pg.ts";
import { type JsonInput } from "../../db/json-codec.ts";

/** A Prisma interactive-transaction client. */
export type Tx = Prisma.TransactionClient;
/** A JSON value Prisma accepts for a Json column. */
export type Json = JsonInput;

/** An event as stored and sent to functions: `{name, data, id, ts, user, v?}` (§2.10; `user` is `{}` when the sender gave none). */
export interface ExecutorEventPayload {
  name: string;
  data: Record<string, unknown>;
  id: string;
  ts: number;
  user: unknown;
  v?: string;
}

/**
 * The executor's closed sets, each also a CHECK constraint on its column (migration status_checks):
 * executor_run.status, executor_queue_item.kind (discovery after a step, a planned step, a sleep's
 * wake-up, a pause's timeout) and executor_pause.kind (waitForEvent, cancelOn, invoke's wait for
 * `inngest/function.finished`).
 */
export const EXECUTOR_RUN_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type ExecutorRunStatus = (typeof EXECUTOR_RUN_STATUSES)[number];
export const QUEUE_ITEM_KINDS = ["discover", "step", "sleepWake", "pauseTimeout"] as const;
export type QueueItemKind = (typeof QUEUE_ITEM_KINDS)[number];
export const PAUSE_KINDS = ["wait", "cancel", "invoke"] as const;
export type PauseKind = (typeof PAUSE_KINDS)[number];

/** A leased queue item (row of `executor_queue_item`). */
export interface QueueItem {
  id: bigint;
  jobId: string;
  runId: string;
  kind: QueueItemKind;
  stepId: string;
  attempt: number;
  payload: Record<string, unknown>;
  owner: string;
}

/** A locked run (`SELECT … FOR UPDATE` of `executor_run`). */
export interface RunRow {
  id: string;
  functionId: string;
  status: string;
  event: ExecutorEventPayload;
  events: ExecutorEventPayload[];
  requestVersion: number;
  forceStepPlan: boolean;
  pending: string[];
  maxAttempts: number;
  nextSeq: number;
}

/** An opcode as returned by the SDK in a 206 (docs/INNGEST-PROTOCOL.md §2.5). */
export interface Op {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  opts?: Record<string, unknown> | null;
  data?: unknown;
  error?: unknown;
  userland?: { id?: string };
}

/** Run statuses after which nothing more happens to a run. */
export const TERMINAL = new Set(["completed", "failed", "cancelled"]);
/** Inngest's idempotency window (Go `consts.FunctionIdempotencyPeriod`) and event-id dedupe window. */
export const DEDUPE_WINDOW_MS = 24 * 3_600_000;
/** Default cancelOn expiry when no timeout is given (~1 year, Go `consts.CancelTimeout`). */
export const DEFAULT_CANCEL_MS = 365 * 86_400_000;
/** Default waitForEvent timeout when none is given. */
export const DEFAULT_WAIT_MS = 7 * 86_400_000;
/** Interactive transaction limits (Prisma's default 5 s is too tight under load). */
export const TX = { timeout: 60_000, maxWait: 30_000 };
/** Maximum steps per run (Go `DefaultMaxStepLimit`, docs/INNGEST-PROTOCOL.md §7.1 item 14). Cut longer runs into segments. */
export const MAX_STEPS_PER_RUN = 1000;
/** Maximum serialised size of one step output (4 MB, Go `consts.go:23-48`). */
export const MAX_STEP_OUTPUT_BYTES = 4 * 1024 * 1024;
/** SQL expression for "now" in UTC, matching Prisma's TIMESTAMP(3) columns (stored as UTC). */
export { NOW } from "./now.ts";

/** Options of the executor engine. */
export interface ExecutorEngineOptions {
  db: PrismaClient;
  /** Prometheus counters (engine/metrics.ts). */
  metrics: ExecutorMetrics;
  /** The hot statements' direct connection (named prepared statements, engine/pg.ts). */
  hot: HotSql;
  /** Key requests to the app are signed with; undefined (dev mode only) = unsigned requests. */
  signingKey: string | undefined;
  /** `x-inngest-server-kind` sent to the app: "cloud" (signed mode) or "dev" (dev mode). */
  serverKind: "cloud" | "dev";
  /** Retry backoff table in ms (default Inngest's, §2.8). */
  backoffMs: readonly number[];
  /** Add 0–30 s jitter to backoff (on for the default table, off when overridden). */
  jitter: boolean;
  /** Send `ctx.fn_id`/`ctx.qi_id` so the SDK uses async checkpointing (§2.13). Default true. */
  checkpointing: boolean;
  /** Lease length in ms; renewed by heartbeat every lease/3 while a request is in flight. */
  leaseMs: number;
  /** Maximum queue items processed at once by this process. */
  workers: number;
  /** Queue poll interval when idle, ms. */
  pollMs: number;
  /** Stable name of this executor instance; at start-up, leases held by a previous process of the same name are released. */
  instance: string;
  /** Retention of ended runs, events and the ops log, ms (housekeeping; at least 24 h). */
  retentionMs: number;
  /** On stop, how long in-flight requests may finish before they are aborted and released, ms. */
  stopGraceMs: number;
  /** Request timeout for one call to the app, ms (Go allows 2 h, `consts.MaxFunctionTimeout`). */
  requestTimeoutMs: number;
  /** A run whose app has not answered at all (connection refused, reset, DNS) for this long is failed (`AppUnreachable`), ms. */
  appGoneMs: number;
  /** Where the engine logs (server/executor/logger.ts): JSON lines or text, with run and step ids. */
  logger: ExecutorLogger;
}

/**
 * What every engine module works with instead of `this`: the options, the mutable process-local
 * state, and two callbacks the composing {@link Executor} provides (so modules do not import each
 * other in a cycle: runs emit events, events start runs).
 */
export interface EngineContext {
  readonly o: ExecutorEngineOptions;
  readonly state: {
    /** False once stop() began: no new leases; aborted requests release their items. */
    running: boolean;
    /** Requests in flight, aborted on stop after the grace period. */
    controllers: Set<AbortController>;
    /** Items in flight per concurrency key (single-process concurrency limits). */
    inflightByKey: Map<string, number>;
    /** Rate limit of the "app unreachable" log line, per app origin: when it was last written and how many were held back since. */
    unreachableLog: Map<string, { at: number; suppressed: number }>;
  };
  /** One log line per PostgreSQL outage (engine/outage-log.ts): report failed and succeeded database operations here. */
  readonly dbOutage: OutageLog;
  /** Wakes the queue loop (after a local enqueue). */
  wake(): void;
  /** Stores and processes an internal event (`inngest/function.*`) inside `tx`. */
  emit(tx: Tx, event: ExecutorEventPayload): Promise<void>;
  /** Group commit of async checkpoints across runs (checkpoint-batch.ts `CheckpointBatcher`). */
  readonly checkpoints: CheckpointWriter;
}

/** One run's checkpoint as the batch statement takes it: its queue item, the lease owner and the step rows. */
export interface CheckpointEntry {
  runId: string;
  qi: bigint;
  owner: string;
  rows: { ord: number; hashedId: string; value: unknown; name: string }[];
  /** Serialised size of `rows`, bytes (bounds a batch's size). */
  bytes: number;
}

/** Outcome of one checkpoint: `item` false = lease gone (stale); `run` false = run ended or the step limit is near (the caller decides). */
export interface CheckpointOutcome {
  item: boolean;
  run: boolean;
  inserted: number;
}

/** Writes checkpoints durably: resolves after the commit that holds `entry`. */
export interface CheckpointWriter {
  submit(entry: CheckpointEntry): Promise<CheckpointOutcome>;
}

/** Runs `fn` in one interactive transaction with the engine's limits. */
export function inTx<T>(ctx: EngineContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.o.db.$transaction(fn, TX);
}

/** `{name, message, …}` of any thrown or reported error value (name defaults to "Error"). */
export function normalizeError(error: unknown): Record<string, unknown> {
  if (error && typeof error === "object" && !Array.isArray(error)) {
    const e = error as Record<string, unknown>;
    return { name: typeof e.name === "string" ? e.name : "Error", message: typeof e.message === "string" ? e.message : JSON.stringify(e).slice(0, 2000), ...e };
  }
  return { name: "Error", message: typeof error === "string" ? error : JSON.stringify(error ?? null) };
}

/** The `message` of an error-shaped body, or "". */
export function errorMessageOf(body: unknown): string {
  if (body && typeof body === "object" && "message" in body) return String(body.message);
  return "";
}

/** Message of an error including its `cause` code (e.g. `fetch failed (ECONNREFUSED)`). */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause ? `${error.message} (${cause.code ?? cause.message ?? ""})` : error.message;
}

/** True for a discovery request (`stepId=step`, "no specific step", §2.3). */
export function discoveryOf(item: QueueItem): boolean {
  return item.stepId === "step";
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Whether `error` is PostgreSQL aborting a transaction to break a deadlock or a serialisation
 * conflict (SQLSTATE 40P01 / 40001, Prisma's P2034): the statement changed nothing and may be run
 * again. node-postgres puts the SQLSTATE in `code`; Prisma wraps it in its own code or message.
 */
export function isRetryableConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "40P01" || code === "40001" || code === "P2034") return true;
  return /deadlock detected|could not serialize|40P01|P2034/i.test(error instanceof Error ? error.message : String(error));
}

/**
 * Runs `fn` again (up to `attempts` times in all) when PostgreSQL aborted it to break a deadlock
 * ({@link isRetryableConflict}); other errors, and the last conflict, are thrown. Only for work that
 * is one transaction or one statement: an aborted attempt wrote nothing. `onRetry` hears each retry.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5, onRetry?: (error: unknown, attempt: number) => void): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isRetryableConflict(error)) throw error;
      onRetry?.(error, attempt + 1);
    }
  }
}

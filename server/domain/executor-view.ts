/**
 * The executor's view of a run: what the engine driving a Longhaul run is doing right now (running
 * a request, queued, sleeping until T, waiting for an event, retrying with the next attempt at T),
 * derived from a snapshot of its durable state. Pure: the snapshot is read by a port
 * (server/db/executor-view-queries.ts reads the embedded executor's tables); on Inngest (dev server,
 * self-hosted or Cloud) there is no such snapshot and the view says so instead of guessing.
 *
 * The states follow the executor's queue (server/executor/README.md "Behaviour"): a leased queue
 * item is a request in flight; an item with attempt > 0 is a retry (`attempt` counts the attempts
 * already used, as Inngest's `attempt` does, so the next one is attempt + 1 of `maxAttempts`); a
 * `sleepWake` item is a `step.sleep`, a `pauseTimeout` item with a `wait` pause is a
 * `step.waitForEvent` (its `availableAt` is the timeout).
 */

/** States of {@link ExecutorView}, in the order the view checks them. */
export const EXECUTOR_STATES = ["ended", "running", "retrying", "queued", "waiting", "sleeping", "idle"] as const;
export type ExecutorState = (typeof EXECUTOR_STATES)[number];

/** One executor queue item of the run (executor_queue_item). */
export interface ExecutorQueueItemSnapshot {
  /** discover · step · sleepWake · pauseTimeout */
  kind: string;
  /** Hashed step id (`step` items), or "step" for a discovery request. */
  stepId: string;
  /** Attempts already used (0 for the first). */
  attempt: number;
  availableAt: Date;
  leaseUntil: Date | null;
  /** `{hashedId?}` of sleeps and waits. */
  hashedId: string | null;
}

/** The executor's durable state of the segment (executor run) now driving a Longhaul run. */
export interface ExecutorRunSnapshot {
  /** The clock the executor's leases are measured on (the database's). */
  now: Date;
  /** Segments (executor runs) of this Longhaul run so far; the snapshot is of the latest. */
  segments: number;
  run: {
    id: string;
    /** queued · running · completed · failed · cancelled */
    status: string;
    maxAttempts: number;
    createdAt: Date;
    startedAt: Date | null;
    endedAt: Date | null;
    /** `{name, message}` when failed, as the executor stored it. */
    error: unknown;
  };
  items: ExecutorQueueItemSnapshot[];
  /** The run's open pauses (executor_pause): `wait` (waitForEvent, with its event name) or `cancel`. */
  pauses: { kind: string; event: string; hashedId: string | null; expiresAt: Date }[];
  /** Step names by hashed id, from the executor's request log (the names the SDK reported: `model-3`, `await-decision-2-0`). */
  names: Record<string, string>;
  /** The step of the latest failed attempt in the request log (a `StepError` op's name), else null. */
  failedStep: string | null;
  /** The error of the latest failed attempt, when the app recorded one (Longhaul's step row), else null. */
  lastError: string | null;
}

/** What the executor is doing with a run, or why that is not known. */
export type ExecutorView =
  | {
      available: false;
      /** One calm sentence for the page ("This app runs on Inngest …"). */
      reason: string;
    }
  | {
      available: true;
      state: ExecutorState;
      /** One line for a person: "Retrying model-3: attempt 2 of 5 at 2026-12-01T08:19:06.000Z". */
      label: string;
      executorRunId: string;
      /** The executor's own status of the segment (queued · running · completed · failed · cancelled). */
      executorStatus: string;
      segments: number;
      /** The step concerned (name as the SDK reported it), when there is one. */
      step: string | null;
      /** running: the attempt in flight; retrying: the next attempt (1-based). Null otherwise. */
      attempt: number | null;
      maxAttempts: number;
      /** ISO: retrying → next attempt at; sleeping → wakes at; waiting → times out at; queued → due since. Null otherwise. */
      at: string | null;
      /** waiting: the event name awaited. */
      event: string | null;
      lastError: string | null;
      /** ISO time of the snapshot (the database clock). */
      checkedAt: string;
    };

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

function errorText(error: unknown): string | null {
  if (error === null || error === undefined) return null;
  if (typeof error === "string") return error;
  if (typeof error === "object" && "message" in error && typeof error.message === "string") {
    const name = "name" in error && typeof error.name === "string" ? `${error.name}: ` : "";
    return `${name}${error.message}`;
  }
  return JSON.stringify(error);
}

/**
 * The executor's view of a run from its snapshot. Rules, in order: an ended segment is `ended`;
 * a leased item (lease not yet expired) is `running` (its attempt is attempt + 1); an unleased item
 * with attempt > 0 is `retrying` with `at` = its availableAt; a request item due now is `queued`;
 * a `pauseTimeout` item with a wait pause is `waiting` (`at` = the timeout); a `sleepWake` item is
 * `sleeping` (`at` = the wake-up); nothing queued is `idle` (between requests, or the run's last
 * request is being saved).
 */
export function describeExecutorRun(snapshot: ExecutorRunSnapshot): ExecutorView {
  const { run, items, now } = snapshot;
  const nameOf = (hashedId: string | null | undefined) => (hashedId ? (snapshot.names[hashedId] ?? null) : null);
  const base = {
    available: true as const,
    executorRunId: run.id,
    executorStatus: run.status,
    segments: snapshot.segments,
    maxAttempts: run.maxAttempts,
    lastError: snapshot.lastError,
    checkedAt: now.toISOString(),
    step: null as string | null,
    attempt: null as number | null,
    at: null as string | null,
    event: null as string | null,
  };
  if (TERMINAL.has(run.status)) {
    const error = run.status === "failed" ? errorText(run.error) : null;
    return {
      ...base,
      state: "ended",
      lastError: error ?? snapshot.lastError,
      label: `Segment ${snapshot.segments} ended: ${run.status}${error ? ` (${error})` : ""}`,
    };
  }
  const requests = items.filter((i) => i.kind === "discover" || i.kind === "step");
  const stepOf = (i: ExecutorQueueItemSnapshot) => (i.stepId === "step" ? null : (nameOf(i.stepId) ?? i.stepId.slice(0, 8)));
  const leased = items.find((i) => i.leaseUntil !== null && i.leaseUntil.getTime() >= now.getTime());
  if (leased) {
    const step = stepOf(leased);
    const attempt = leased.attempt + 1;
    return {
      ...base,
      state: "running",
      step,
      attempt,
      label: `Running ${step ? `step ${step}` : "the next steps"}${attempt > 1 ? ` (attempt ${attempt} of ${run.maxAttempts})` : ""}`,
    };
  }
  const retry = requests.filter((i) => i.attempt > 0).sort((a, b) => a.availableAt.getTime() - b.availableAt.getTime())[0];
  if (retry) {
    const step = stepOf(retry) ?? snapshot.failedStep;
    const attempt = retry.attempt + 1;
    const due = retry.availableAt.getTime() <= now.getTime();
    return {
      ...base,
      state: "retrying",
      step,
      attempt,
      at: retry.availableAt.toISOString(),
      label: `Retrying${step ? ` ${step}` : ""}: attempt ${attempt} of ${run.maxAttempts} ${due ? "due now" : `at ${retry.availableAt.toISOString()}`}`,
    };
  }
  const due = requests.filter((i) => i.availableAt.getTime() <= now.getTime()).sort((a, b) => a.availableAt.getTime() - b.availableAt.getTime())[0];
  if (due) {
    return { ...base, state: "queued", step: stepOf(due), at: due.availableAt.toISOString(), label: "Queued: waiting for a free executor worker" };
  }
  const wait = items.find((i) => i.kind === "pauseTimeout");
  if (wait) {
    const pause = snapshot.pauses.find((p) => p.kind === "wait" && p.hashedId === wait.hashedId) ?? snapshot.pauses.find((p) => p.kind === "wait");
    const step = nameOf(wait.hashedId);
    const event = pause?.event ?? null;
    return {
      ...base,
      state: "waiting",
      step,
      event,
      at: wait.availableAt.toISOString(),
      label: `Waiting for ${event ? `event ${event}` : "an event"}${step ? ` (${step})` : ""} until ${wait.availableAt.toISOString()}`,
    };
  }
  const sleep = items.filter((i) => i.kind === "sleepWake").sort((a, b) => a.availableAt.getTime() - b.availableAt.getTime())[0];
  if (sleep) {
    const step = nameOf(sleep.hashedId);
    return {
      ...base,
      state: "sleeping",
      step,
      at: sleep.availableAt.toISOString(),
      label: `Sleeping${step ? ` (${step})` : ""} until ${sleep.availableAt.toISOString()}`,
    };
  }
  const later = requests.sort((a, b) => a.availableAt.getTime() - b.availableAt.getTime())[0];
  if (later) {
    return { ...base, state: "queued", step: stepOf(later), at: later.availableAt.toISOString(), label: `Queued for ${later.availableAt.toISOString()}` };
  }
  return {
    ...base,
    state: "idle",
    label: run.status === "queued" ? "Queued: the executor has not started this segment yet" : "Between requests: the executor is saving the last one",
  };
}

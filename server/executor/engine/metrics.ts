import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PrismaClient } from "../../db/client.ts";
import { NOW } from "./now.ts";

/**
 * The executor's Prometheus metrics (`GET /metrics`, text exposition format, prom-client). One
 * registry per executor (several may run in one process in tests). Queue depth and lag are read
 * from PostgreSQL at scrape time; the counters count what this process did since it started
 * (`rate(longhaul_executor_steps_total[1m])` = steps per second); prom-client's default process
 * metrics (memory, heap, `nodejs_eventloop_lag_p99_seconds`, GC) come with them.
 */
export interface ExecutorMetrics {
  registry: Registry;
  /** Step results memoized (checkpointed or returned in a response). */
  steps: Counter;
  /** Requests rescheduled with attempt+1 (StepError, retriable HTTP error, timeout). */
  retries: Counter<"reason">;
  /** Lease renewals by heartbeat while a request is in flight. */
  leaseRenewals: Counter;
  /** Requests to the app that failed: no response (`unreachable`), `timeout`, or an HTTP error status (`http_<code>`). */
  failedRequests: Counter<"reason">;
  /** Requests sent to the app, by response status. */
  requests: Counter<"status">;
  /** Runs ended, by final status. */
  runsEnded: Counter<"status">;
  /** Async checkpoints written per batch statement (group commit, engine/checkpoint-batch.ts). */
  checkpointBatch: Histogram;
}

/** Creates the metrics over `db` (queue depth and lag gauges query it when scraped). */
export function createExecutorMetrics(db: PrismaClient): ExecutorMetrics {
  const registry = new Registry();
  // The process's own figures (resident memory, heap, event-loop delay since the previous scrape, GC).
  collectDefaultMetrics({ register: registry });
  let last: Promise<{ due: number; total: number; leased: number; lag: number }> | undefined;
  let lastAt = 0;
  // One query per scrape for both gauges (cached for 500 ms).
  const queueState = () => {
    if (!last || Date.now() - lastAt > 500) {
      lastAt = Date.now();
      last = db
        .$queryRawUnsafe<{ due: bigint; total: bigint; leased: bigint; lag: number | null }[]>(
          `SELECT count(*) FILTER (WHERE "availableAt" <= ${NOW} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${NOW})) AS due,
                  count(*) AS total,
                  count(*) FILTER (WHERE "leaseUntil" >= ${NOW}) AS leased,
                  EXTRACT(EPOCH FROM ${NOW} - min("availableAt") FILTER (WHERE "availableAt" <= ${NOW} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${NOW})))::float8 AS lag
             FROM executor_queue_item`,
        )
        .then((rows) => {
          const r = rows[0];
          return { due: Number(r?.due ?? 0), total: Number(r?.total ?? 0), leased: Number(r?.leased ?? 0), lag: r?.lag ?? 0 };
        });
    }
    return last;
  };
  new Gauge({
    name: "longhaul_executor_queue_depth",
    help: "Queue items by state: due (ready and not leased), leased (in flight), total (also sleeps, waits and retries not yet due)",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const q = await queueState();
      this.set({ state: "due" }, q.due);
      this.set({ state: "leased" }, q.leased);
      this.set({ state: "total" }, q.total);
    },
  });
  new Gauge({
    name: "longhaul_executor_queue_lag_seconds",
    help: "Age of the oldest due queue item that is not leased (0 when none): how far the executor is behind",
    registers: [registry],
    async collect() {
      this.set((await queueState()).lag);
    },
  });
  return {
    registry,
    steps: new Counter({ name: "longhaul_executor_steps_total", help: "Step results memoized", registers: [registry] }),
    retries: new Counter({
      name: "longhaul_executor_retries_total",
      help: "Requests rescheduled with attempt+1",
      labelNames: ["reason"],
      registers: [registry],
    }),
    leaseRenewals: new Counter({
      name: "longhaul_executor_lease_renewals_total",
      help: "Lease renewals by heartbeat while a request is in flight",
      registers: [registry],
    }),
    failedRequests: new Counter({
      name: "longhaul_executor_failed_requests_total",
      help: "Requests to the app without a usable answer: unreachable, timeout, http_<status>",
      labelNames: ["reason"],
      registers: [registry],
    }),
    requests: new Counter({
      name: "longhaul_executor_requests_total",
      help: "Requests sent to the app, by response status (0 = none)",
      labelNames: ["status"],
      registers: [registry],
    }),
    runsEnded: new Counter({ name: "longhaul_executor_runs_ended_total", help: "Runs ended, by final status", labelNames: ["status"], registers: [registry] }),
    checkpointBatch: new Histogram({
      name: "longhaul_executor_checkpoint_batch_size",
      help: "Async checkpoints (of different runs) written by one statement and one commit",
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
  };
}

import { describe, expect, it } from "vitest";
import { describeExecutorRun, type ExecutorRunSnapshot, type ExecutorQueueItemSnapshot } from "../../server/domain/executor-view.ts";

// The executor's view of a run from a snapshot of its queue (the integration test
// tests/integration/executor-view.test.ts reads real snapshots from the embedded executor).

const now = new Date("2026-12-01T08:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms);

function snapshot(items: Partial<ExecutorQueueItemSnapshot>[], extra: Partial<ExecutorRunSnapshot> = {}): ExecutorRunSnapshot {
  return {
    now,
    segments: 2,
    run: { id: "01EXEC", status: "running", maxAttempts: 5, createdAt: at(-60_000), startedAt: at(-59_000), endedAt: null, error: null },
    items: items.map((i) => ({ kind: "discover", stepId: "step", attempt: 0, availableAt: at(0), leaseUntil: null, hashedId: null, ...i })),
    pauses: [],
    names: { h1: "model-3", h2: "await-decision-1-0", h3: "pause-1" },
    failedStep: null,
    lastError: null,
    ...extra,
  };
}

describe("describeExecutorRun", () => {
  it("sleeping: a sleepWake item in the future, named by its hashed id", () => {
    const v = describeExecutorRun(snapshot([{ kind: "sleepWake", availableAt: at(90_000), hashedId: "h3" }]));
    expect(v).toMatchObject({ available: true, state: "sleeping", step: "pause-1", at: at(90_000).toISOString(), segments: 2 });
  });

  it("retrying: an unleased request item with attempt > 0; the step from the request log's StepError", () => {
    const v = describeExecutorRun(snapshot([{ attempt: 1, availableAt: at(30_000) }], { failedStep: "model-3", lastError: "[rate_limited] 429" }));
    expect(v).toMatchObject({ state: "retrying", step: "model-3", attempt: 2, maxAttempts: 5, at: at(30_000).toISOString(), lastError: "[rate_limited] 429" });
    expect(v.available && v.label).toBe(`Retrying model-3: attempt 2 of 5 at ${at(30_000).toISOString()}`);
  });

  it("running beats everything queued: a live lease; an expired lease is not running", () => {
    const items = [
      { kind: "step", stepId: "h1", attempt: 2, leaseUntil: at(4_000) },
      { kind: "sleepWake", availableAt: at(90_000), hashedId: "h3" },
    ];
    expect(describeExecutorRun(snapshot(items))).toMatchObject({ state: "running", step: "model-3", attempt: 3 });
    const expired = describeExecutorRun(snapshot([{ kind: "step", stepId: "h1", leaseUntil: at(-1_000) }]));
    expect(expired).toMatchObject({ state: "queued", step: "model-3" });
  });

  it("waiting: a pauseTimeout with its wait pause names the event and the timeout", () => {
    const v = describeExecutorRun(
      snapshot([{ kind: "pauseTimeout", availableAt: at(86_400_000), hashedId: "h2" }], {
        pauses: [
          { kind: "cancel", event: "longhaul/run.cancelled", hashedId: null, expiresAt: at(1e9) },
          { kind: "wait", event: "longhaul/escalation.applied", hashedId: "h2", expiresAt: at(86_400_000) },
        ],
      }),
    );
    expect(v).toMatchObject({ state: "waiting", event: "longhaul/escalation.applied", step: "await-decision-1-0", at: at(86_400_000).toISOString() });
  });

  it("ended and idle", () => {
    const failed = describeExecutorRun(
      snapshot([], { run: { ...snapshot([]).run, status: "failed", error: { name: "AppUnreachable", message: "gone for 24 h" } } }),
    );
    expect(failed).toMatchObject({ state: "ended", executorStatus: "failed", lastError: "AppUnreachable: gone for 24 h" });
    expect(describeExecutorRun(snapshot([]))).toMatchObject({ state: "idle" });
    expect(describeExecutorRun(snapshot([], { run: { ...snapshot([]).run, status: "queued" } }))).toMatchObject({
      state: "idle",
      label: expect.stringContaining("not started"),
    });
  });
});

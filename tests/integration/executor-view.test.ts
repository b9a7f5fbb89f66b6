import { describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { executorViewSource, getExecutorView } from "../../server/db/executor-view-queries.ts";
import type { ExecutorView } from "../../server/domain/executor-view.ts";
import { waitFor } from "../support/executor-harness.ts";
import { type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testPrincipal } from "../support/principals.ts";

// The executor's view of a run (tRPC task.executorView) on the real stack: the embedded executor
// process driving the real agent-run function against the test PostgreSQL, the scripted model
// faulted at its HTTP boundary. The view is read from the executor's own tables.

let stack: AgentStack;
useAgentStack((started) => (stack = started));
const api = () => createCaller({ prisma: stack.db, actor: "view-test", principal: testPrincipal("view-test") });

type Available = Extract<ExecutorView, { available: true }>;

/** Polls the embedded view of `runId` until `accept` holds; returns that view. */
function waitForView(runId: string, what: string, accept: (v: Available) => boolean, timeoutMs = 60_000): Promise<Available> {
  return waitFor(
    `the executor view of ${runId} to be ${what}`,
    async () => {
      const view = await getExecutorView({ prisma: stack.db, runId, source: "embedded" });
      return view.available && accept(view) ? view : undefined;
    },
    timeoutMs,
    100,
  );
}

describe("executor view", () => {
  it("a model step answered 429 with retry-after 30 s shows as retrying: its step, attempt 2, next attempt at the retry-after", async () => {
    await stack.armFaults({ kind: "429", count: 1, retryAfterSeconds: 30 });
    const { taskId, runId } = await stack.launchDemo({ limit: 2 });
    const view = await waitForView(runId, "retrying", (v) => v.state === "retrying");
    expect(view).toMatchObject({ step: "model-0", attempt: 2, executorStatus: "running", segments: 1 });
    expect(view.maxAttempts).toBeGreaterThan(2);
    expect(view.label).toContain("Retrying model-0: attempt 2 of");
    const waitMs = Date.parse(view.at!) - Date.parse(view.checkedAt);
    expect(waitMs).toBeGreaterThan(20_000);
    expect(waitMs).toBeLessThanOrEqual(30_500);
    expect(view.lastError ?? "").toMatch(/429|rate/i);

    // Cancelled while it waits (the event the app's cancel sends): the segment ends and the view says so.
    await stack.sendEvent("longhaul/run.cancelled", { taskId, runId });
    const ended = await waitForView(runId, "ended", (v) => v.state === "ended", 30_000);
    expect(ended).toMatchObject({ executorStatus: "cancelled" });
    expect(ended.label).toContain("ended: cancelled");
  });

  it("a run escalated on a loop shows as waiting for the decision event, with its timeout", async () => {
    const { taskId, runId } = await stack.launch({
      input: { goal: "Find out what this project is from the README in the workspace, record it as a fact, then finish.", profile: "scripted-loop" },
      actor: "view-test",
    });
    const esc = await stack.waitForOpenEscalation(taskId);
    const view = await waitForView(runId, "waiting", (v) => v.state === "waiting");
    expect(view.event).toBe("longhaul/escalation.applied");
    expect(view.step ?? "").toMatch(/^await-decision-/);
    expect(Date.parse(view.at!)).toBeGreaterThan(Date.parse(view.checkedAt));
    expect(view.label).toContain("Waiting for event longhaul/escalation.applied");

    // Through tRPC the same view (the procedure reads the env's source; this process has none set, so it is asked directly here).
    const viaApi = await api().task.executorView({ runId });
    if (executorViewSource() === "embedded") expect(viaApi).toMatchObject({ available: true, state: "waiting" });
    else expect(viaApi).toMatchObject({ available: false });

    await stack.decide({ input: { escalationId: esc.id, decision: "cancel" }, actor: "handler-a" });
    await waitForView(runId, "ended", (v) => v.state === "ended", 30_000);
  });

  it("is unavailable, not an error, on Inngest and for a run the executor does not hold", async () => {
    expect(executorViewSource({ INNGEST_BASE_URL: "http://127.0.0.1:8288" })).toBe("embedded");
    expect(executorViewSource({ INNGEST_BASE_URL: "http://127.0.0.1:8288", INNGEST_DEV: "1" })).toBe("inngest");
    expect(executorViewSource({})).toBe("inngest");
    const onInngest = await getExecutorView({ prisma: stack.db, runId: "run_whatever", source: "inngest" });
    expect(onInngest).toMatchObject({ available: false, reason: expect.stringContaining("Inngest") });
    const unknown = await getExecutorView({ prisma: stack.db, runId: "run_not_in_the_executor", source: "embedded" });
    expect(unknown).toMatchObject({ available: false, reason: expect.stringContaining("no state for this run") });
  });
});

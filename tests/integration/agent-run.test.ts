import { describe, expect, it } from "vitest";
import { expectedLicenseCsv, licenseAuditGoal } from "../../server/tools/demo/license-audit.ts";
import { loadRunEvidence, wastedModelCalls, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// The agent run end to end on the real pieces: the real `agent-run` Inngest function served by an app
// process, the embedded executor process driving it over the Inngest protocol (signed), the scripted
// model server over HTTP, and the test PostgreSQL. Nothing is mocked.

const LIMIT = 8;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

describe("agent run", () => {
  it("completes the license-audit demo: exact CSV, one email, every step executed once, no wasted model call", async () => {
    const { taskId, runId } = await stack.launchDemo({ limit: LIMIT });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });

    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
    expect(ev.outbox).toHaveLength(1);
    expect(ev.sideEffects).toHaveLength(1);
    expect(ev.sideEffects[0]).toMatchObject({ tool: "send_email", status: "committed", repeats: 0 });

    // No re-execution: every step body ran exactly once, and each model step made one productive call.
    expect(ev.steps.length).toBeGreaterThan(2 * LIMIT);
    expect(ev.steps.filter((s) => s.attempts !== 1 || s.status !== "completed").map((s) => `${s.stepId} ${s.status} ×${s.attempts}`)).toEqual([]);
    const modelSteps = ev.steps.filter((s) => s.kind === "model").map((s) => s.stepId);
    expect(
      ev.modelCalls
        .filter((c) => c.cause === "productive")
        .map((c) => c.stepId)
        .sort(),
    ).toEqual([...modelSteps].sort());
    expect(ev.modelCalls.every((c) => c.status === "ok" && c.billed && c.attempt === 0)).toBe(true);
    // (the only other calls are the model-written summaries of checkpoints, one per checkpoint step)
    expect(wastedModelCalls(ev)).toEqual([]);
    expect(ev.steps.at(-1)).toMatchObject({ tool: "finish", status: "completed" });

    // The executor's runs of agent-run agree: each segment completed, the last one with the run's result.
    expect(ev.segments.map((r) => r.status)).toEqual(ev.segments.map(() => "completed"));
    expect(ev.executorRun).toMatchObject({ status: "completed", output: { status: "completed" } });
  });

  it("retries a 429 after its retry-after and the model step then succeeds", async () => {
    const retryAfterSeconds = 3;
    // The fault names this run's goal (its own package count), so only this run's requests can take it.
    const limit = LIMIT - 1;
    await stack.armFaults({ kind: "429", count: 1, retryAfterSeconds, promptContains: licenseAuditGoal(limit) });
    const { taskId, runId } = await stack.launchDemo({ limit });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, limit));
    expect(ev.outbox).toHaveLength(1);

    const first = ev.modelCalls.filter((c) => c.stepId === "model-0");
    const served = await fetch(`${stack.model.url}/control/stats`).then((r) => r.json() as Promise<{ faultsServed: Record<string, number> }>);
    expect(
      first,
      `model-0's calls; the server served faults ${JSON.stringify(served.faultsServed)}; the run's calls ${JSON.stringify(ev.modelCalls.slice(0, 4))}`,
    ).toHaveLength(2);
    expect(first[0]).toMatchObject({ status: "error", httpStatus: 429, billed: false, cause: "retry", attempt: 0 });
    expect(first[1]).toMatchObject({ status: "ok", httpStatus: 200, billed: true, cause: "productive", attempt: 1 });
    // Time from the end of the 429 to the start of the retried HTTP call: the executor waited for
    // retry-after, give or take clock granularity. Its own backoff here is 50 ms, but a failed step
    // round trip alone takes a second or so on a loaded machine, hence a retry-after of 3 s.
    const gapMs = first[1]!.createdAt.getTime() - first[1]!.latencyMs - first[0]!.createdAt.getTime();
    expect(gapMs).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 50);

    expect(ev.steps.find((s) => s.stepId === "model-0")).toMatchObject({ status: "completed", attempts: 2 });
    // Only that step was retried; every other step ran once and every other model call was productive.
    expect(ev.steps.filter((s) => s.stepId !== "model-0" && s.attempts !== 1).map((s) => s.stepId)).toEqual([]);
    expect(wastedModelCalls({ ...ev, modelCalls: ev.modelCalls.filter((c) => c.stepId !== "model-0") })).toEqual([]);
    expect(ev.executorRun?.status).toBe("completed");
  });
});

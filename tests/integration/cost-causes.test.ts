import { describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { testPrincipal } from "../support/principals.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import { AGENT_STEP_RETRIES } from "../../server/inngest/functions/agent-run.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, disarmFaults, launchDemoWithProfile, testResumePorts, waitForCheckpoints, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { outcomeTableCsv } from "../../server/domain/cost-rollup.ts";

// The cost ledger's causes on the real pieces (app process serving agent-run, executor process,
// scripted model server with faults armed through its control endpoint, test PostgreSQL): an
// unbilled 429, a billed cut stream and a reply without usage on one step (retry, estimated); a
// kill -9 of the app right after a model call was recorded (restart); a resume from an earlier
// checkpoint and a fork (discarded). Totals of a task equal the sum of its runs in the API
// (`cost.task`, `cost.tasks`) and in the /costs rollup.

const LIMIT = 6;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

const api = () => createCaller({ prisma: stack.db, actor: "cost-test", principal: testPrincipal("cost-test") });
const calls = (runId: string) => stack.db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });

/** The API's task totals equal the sum of the task's runs, and the /costs rollup of its profile. */
async function expectTotalsAgree(taskId: string, profile: string): Promise<number> {
  const split = await api().cost.task({ taskId });
  const sum = split.runs.reduce((s, r) => s + r.usd, 0);
  expect(split.totals.usd).toBeCloseTo(sum, 8);
  const ledger = await stack.db.modelCall.aggregate({ where: { run: { taskId } }, _sum: { costUsd: true } });
  expect(split.totals.usd).toBeCloseTo(Number(ledger._sum.costUsd ?? 0), 8);
  const [listed] = await api().cost.tasks({ taskIds: [taskId] });
  expect(listed!.usd).toBeCloseTo(sum, 8);
  const rollup = await api().cost.rollup({ profile });
  expect(rollup.headline.usd).toBeCloseTo(sum, 8);
  expect(rollup.outcomes.reduce((s, r) => s + r.usd, 0)).toBeCloseTo(sum, 8);
  return sum;
}

describe("cost causes through the write paths", () => {
  it("a step's unbilled 429 costs $0, its billed cut stream is a retry with estimated tokens, a reply without usage is estimated and flagged", async () => {
    const profile = await createTestProfile(stack.db, "cost-retry", {});
    await stack.armFaults([
      { kind: "429", count: 1, retryAfterSeconds: 0 },
      { kind: "cut", count: 1 },
      { kind: "no_usage", count: 1 },
    ]);
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    await disarmFaults(stack);
    const first = (await calls(runId)).filter((c) => c.stepId === "model-0");
    expect(first.map((c) => [c.attempt, c.httpStatus, c.status, c.billed, c.cause, c.estimated])).toEqual([
      [0, 429, "error", false, "retry", false],
      [1, 200, "error", true, "retry", true],
      [2, 200, "ok", true, "productive", true],
    ]);
    expect(Number(first[0]!.costUsd)).toBe(0);
    expect(Number(first[1]!.costUsd)).toBeGreaterThan(0);
    expect(first[2]!.promptTokens).toBeGreaterThan(0);
    expect(first[2]!.priceVersion).toBe(`profile:${profile}`);
    // Flagged wherever the figure goes: the task's split, the task totals, the rollup.
    const split = await api().cost.task({ taskId });
    expect(split.totals.estimatedCalls).toBe(2);
    expect(split.runs[0]!.estimatedCalls).toBe(2);
    expect(split.runs[0]!.unbilledCalls).toBe(1);
    const rollup = await api().cost.rollup({ profile });
    expect(rollup.headline.estimatedCalls).toBe(2);
    expect(rollup.headline.estimatedUsd).toBeGreaterThan(0);
    expect(rollup.outcomeTable.rows[0]!.at(-1)).toBe("yes");
    expect(rollup.outcomeCsv.trimEnd().split("\r\n")[1]).toBe(outcomeTableCsv(rollup.outcomes).trimEnd().split("\r\n")[1]);
    expect(rollup.outcomeCsv.trimEnd().split("\r\n")[1]!.split(",").at(-1)).toBe("yes");
    expect(rollup.byCause.retry).toBeCloseTo(Number(first[1]!.costUsd), 8);
    await expectTotalsAgree(taskId, profile);
  });

  it("kill -9 of the app right after a model call was recorded: the re-executed step's earlier call becomes restart", async () => {
    const profile = await createTestProfile(stack.db, "cost-crash", {});
    await stack.kill("app", "SIGTERM");
    const doomed = await stack.startApp({ crashAt: "model:after-call-recorded@3" });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: LIMIT, profile });
    expect(await doomed.exited).toBe(137);
    await stack.startApp();
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const rows = await calls(runId);
    const restarted = rows.filter((c) => c.cause === "restart");
    expect(restarted).toHaveLength(1);
    const again = rows.filter((c) => c.stepId === restarted[0]!.stepId);
    expect(again.map((c) => [c.attempt, c.cause])).toEqual([
      [restarted[0]!.attempt, "restart"],
      [restarted[0]!.attempt, "productive"],
    ]);
    const split = await api().cost.task({ taskId });
    expect(split.runs[0]!.byCause.restart).toBeCloseTo(Number(restarted[0]!.costUsd), 8);
    expect(split.totals.wasteUsd).toBeGreaterThanOrEqual(Number(restarted[0]!.costUsd) - 1e-9);
    await expectTotalsAgree(taskId, profile);
  });

  it("a resume from an earlier checkpoint discards the work after it; a fork discards what it branched away from; totals stay the sum of the runs", async () => {
    const profile = await createTestProfile(stack.db, "cost-resume", { checkpointEverySteps: 8, autoResumeMax: 0 });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: 10, profile });
    const [cp1] = await waitForCheckpoints(stack.db, taskId, 2);
    await stack.armFaults({ kind: "429", count: AGENT_STEP_RETRIES + 1, retryAfterSeconds: 0 });
    expect((await waitForRunEnd(stack.db, runId)).status).toBe("failed");
    await disarmFaults(stack);
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const keptBefore = (await calls(runId)).filter((c) => c.createdAt <= cp1!.createdAt && c.cause !== "retry");
    const after = (await calls(runId)).filter((c) => c.createdAt > cp1!.createdAt && c.cause !== "retry" && c.status === "ok");
    expect(after.length).toBeGreaterThan(0);

    const resumed = await resumeTask({ taskId, checkpointId: cp1!.id, cause: "resume", actor: "cost-test", ports: testResumePorts(stack) });
    const firstRun = await calls(runId);
    expect(firstRun.filter((c) => after.some((a) => a.id === c.id)).map((c) => c.cause)).toEqual(after.map(() => "discarded"));
    expect(firstRun.filter((c) => keptBefore.some((k) => k.id === c.id)).map((c) => c.cause)).toEqual(keptBefore.map((k) => k.cause));
    await waitForRunEnd(stack.db, resumed.runId, 90_000);
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const afterResume = await api().cost.rollup({ profile });
    const discarded = after.reduce((s, c) => s + Number(c.costUsd), 0);
    expect(afterResume.byCause.discarded).toBeCloseTo(discarded, 8);
    expect(afterResume.headline.resume.tasks).toBe(1);
    expect(afterResume.headline.resume.discardedUsd).toBeCloseTo(discarded, 8);
    expect(afterResume.headline.resume.keptUsd).toBeCloseTo(
      keptBefore.reduce((s, c) => s + Number(c.costUsd), 0),
      8,
    );
    await expectTotalsAgree(taskId, profile);

    // Fork from the same checkpoint: the resumed run's work is what the fork branches away from.
    const resumedProductive = (await calls(resumed.runId)).filter((c) => c.cause === "productive" || c.cause === "checkpoint");
    expect(resumedProductive.length).toBeGreaterThan(0);
    await waitFor("the resumed run's executor run to end", async () => (await stack.waitForExecutorRun(resumed.runId)) === "completed", 60_000);
    const fork = await resumeTask({ taskId, checkpointId: cp1!.id, cause: "fork", actor: "cost-test", ports: testResumePorts(stack) });
    expect((await calls(resumed.runId)).filter((c) => resumedProductive.some((p) => p.id === c.id)).map((c) => c.cause)).toEqual(
      resumedProductive.map(() => "discarded"),
    );
    await waitForRunEnd(stack.db, fork.runId, 90_000);
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const total = await expectTotalsAgree(taskId, profile);
    const split = await api().cost.task({ taskId });
    expect(split.runs.map((r) => r.runCause)).toEqual(["initial", "resume", "fork"]);
    expect(split.runs.every((r) => r.usd > 0)).toBe(true);
    expect(total).toBeCloseTo(split.runs[0]!.usd + split.runs[1]!.usd + split.runs[2]!.usd, 8);
    // A fork is not a resume: the resume figures did not move.
    expect((await api().cost.rollup({ profile })).headline.resume.tasks).toBe(1);
  });
});

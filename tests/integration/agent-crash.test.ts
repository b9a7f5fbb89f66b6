import { beforeEach, describe, expect, it } from "vitest";
import { hostname } from "node:os";
import { startExecutor } from "../../server/executor/index.ts";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";
import { findExecutorRuns, loadRunEvidence, waitFor, wastedModelCalls, WORKSPACE, type AgentStack, type RunEvidence } from "../support/agent-stack.ts";
import { TEST_EVENT_KEY, TEST_SIGNING_KEY } from "../support/executor-harness.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Durability of the agent run against process deaths, on the real pieces (app process serving the
// real agent-run function, executor process, scripted model server, test PostgreSQL): kill -9 of the
// executor, kill -9 of the app right after a side effect committed, and the app down for a while.
// In each case the run completes with the exact CSV and exactly one email, and steps whose results
// were saved are never executed again.

const LIMIT = 8;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** The outcome every scenario must reach: completed, exact CSV, one email (one ledger row). */
async function expectCompletedDemo(ev: RunEvidence): Promise<void> {
  expect(ev.task.status).toBe("completed");
  expect(ev.csv).toBe(await expectedLicenseCsv(WORKSPACE, LIMIT));
  expect(ev.outbox).toHaveLength(1);
  expect(ev.sideEffects).toHaveLength(1);
  expect(ev.sideEffects[0]).toMatchObject({ tool: "send_email", status: "committed" });
  expect(ev.steps.every((s) => s.status === "completed")).toBe(true);
  // Every segment's executor run completed; all but the last continued as new from a checkpoint.
  expect(ev.segments.map((r) => r.status)).toEqual(ev.segments.map(() => "completed"));
  expect(ev.segments.slice(0, -1).every((r) => (r.output as { status?: string }).status === "continued")).toBe(true);
  expect(ev.executorRun).toMatchObject({ status: "completed", output: { status: "completed" } });
}

/** `stepId ×attempts` of every step that ran more than once. */
const reExecuted = (ev: RunEvidence) => ev.steps.filter((s) => s.attempts !== 1).map((s) => `${s.stepId} ×${s.attempts}`);

/** Longhaul run ids launched by this file whose executor runs may still be in flight. */
const launched = new Set<string>();

/** Launches the demo task and remembers its run for the next test's {@link beforeEach}. */
async function launchDemo(): Promise<{ taskId: string; runId: string }> {
  const started = await stack.launchDemo({ limit: LIMIT });
  launched.add(started.runId);
  return started;
}

describe("agent run durability", () => {
  beforeEach(async () => {
    await stack.ensureUp();
    // A run an earlier test left in flight (it failed before its run completed) would share the next
    // kill: its step body running at that moment runs again after the restart, and the crash counters
    // (`…@12`) would count its steps too. Each test starts with none.
    for (const runId of launched) {
      await stack.waitForExecutorRun(runId);
      launched.delete(runId);
    }
  });

  it("kill -9 of the executor mid-run: after a restart the run completes and no saved step runs again", async () => {
    await stack.kill("executor", "SIGTERM");
    // Exits 137 (as kill -9) right after committing the 12th step result, mid-run.
    const doomed = await stack.startExecutor({ crashAt: "executor:after-step-saved@12" });
    const { taskId, runId } = await launchDemo();
    expect(await doomed.exited).toBe(137);
    expect(doomed.output()).toContain("crash at executor:after-step-saved (#12)");
    const doneAtKill = await stack.db.step.count({ where: { runId, status: "completed" } });
    expect(await stack.db.task.findUniqueOrThrow({ where: { id: taskId } }).then((t) => t.status)).toBe("running");

    await stack.startExecutor();
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    await expectCompletedDemo(ev);
    expect(doneAtKill).toBeGreaterThan(0);
    expect(doneAtKill).toBeLessThan(ev.steps.length);
    // No step body ran twice (tool steps included: each tool executed once), and no model call was repeated.
    expect(reExecuted(ev)).toEqual([]);
    expect(wastedModelCalls(ev)).toEqual([]);
    const attempts = loggedAttempts(doomed.output() + stack.executor()!.output(), ev);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a !== 0)).toEqual([]);
  });

  it("kill -9 of the app right after send_email committed: one email, and the agent gets the same messageId", async () => {
    await stack.kill("app", "SIGTERM");
    const doomed = await stack.startApp({ crashAt: "tool:after-side-effect" });
    const { taskId, runId } = await launchDemo();
    expect(await doomed.exited).toBe(137);
    expect(doomed.output()).toContain("crash at tool:after-side-effect (#1)");
    const sentBeforeCrash = await stack.db.outboxMessage.findMany({ where: { taskId } });
    expect(sentBeforeCrash).toHaveLength(1);
    const emailStep = await stack.db.step.findUniqueOrThrow({ where: { runId_stepId: { runId, stepId: sentBeforeCrash[0]!.stepId } } });
    expect(emailStep).toMatchObject({ tool: "send_email", status: "running", attempts: 1 }); // its result was never returned

    await stack.startApp();
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    await expectCompletedDemo(ev);
    const messageId = sentBeforeCrash[0]!.messageId;
    expect(ev.outbox[0]!.messageId).toBe(messageId);
    // The re-executed step found the ledgered effect and returned the original message id...
    const step = ev.steps.find((s) => s.stepId === emailStep.stepId)!;
    expect(step).toMatchObject({ tool: "send_email", attempts: 2, output: { messageId } });
    // ...which is what the executor memoized and so what the agent received as the tool result.
    expect(ev.memoized.get(emailStep.stepId)).toMatchObject({ data: { ok: true, output: { messageId } } });
    expect(ev.sideEffects[0]!.repeats).toBe(1);
    // Only the step in flight at the kill ran again, and the lost request cost no executor attempt.
    expect(reExecuted(ev)).toEqual([`${emailStep.stepId} ×2`]);
    const attempts = loggedAttempts(stack.executor()!.output(), ev);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a !== 0)).toEqual([]);
  });

  it("app down while the executor drives the run: it waits for the app without using up step attempts", async () => {
    const { taskId, runId } = await launchDemo();
    await waitFor("a third of the steps to complete", async () => (await stack.db.step.count({ where: { runId, status: "completed" } })) >= 15, 60_000);
    expect(await stack.kill("app")).toBeNull(); // SIGKILL
    // Keep the app down until the executor has tried to reach it at least twice: the first failure is
    // the in-flight request cut by the kill, the next ones are refused connections. The executor counts
    // them on the run's queue item (`connectFailures`, kept across retries of the same item); its log
    // says "app unreachable" at most once a minute per app, so the log cannot count them.
    await waitFor("the executor to find the app unreachable", async () => (await connectFailures(runId)) >= 2, 30_000);
    // The step whose body the kill interrupted, if any: begun but not ended, or ended in the database
    // but its result not yet memoized by the executor. It must run again; nothing else may.
    const segmentIds = (await findExecutorRuns(stack.db, runId)).map((r) => r.id);
    const memoized = new Set((await stack.db.executorStepResult.findMany({ where: { runId: { in: segmentIds } }, select: { name: true } })).map((r) => r.name));
    const interrupted = (await stack.db.step.findMany({ where: { runId }, orderBy: { index: "asc" } }))
      .filter((s) => s.status === "running" || !memoized.has(s.stepId))
      .map((s) => s.stepId);
    expect(interrupted.length).toBeLessThanOrEqual(1);
    expect(await stack.db.task.findUniqueOrThrow({ where: { id: taskId } }).then((t) => t.status)).toBe("running");

    await stack.startApp();
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const ev = await loadRunEvidence(stack.db, { taskId, runId });
    await expectCompletedDemo(ev);
    // The unreachable app never cost an executor attempt: every request the executor made for this run,
    // before and after the outage, was attempt 0 (its log), and so was every model call...
    const attempts = loggedAttempts(stack.executor()!.output(), ev);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a !== 0)).toEqual([]);
    expect(ev.modelCalls.filter((c) => c.attempt !== 0)).toEqual([]);
    // (a model step cut after it had ended but before its result was memoized is replayed, and says so)
    expect(wastedModelCalls({ ...ev, modelCalls: ev.modelCalls.filter((c) => !interrupted.includes(c.stepId)) })).toEqual([]);
    // ...and no step ran twice, except the one whose body the kill interrupted.
    expect(reExecuted(ev)).toEqual(interrupted.map((id) => `${id} ×2`));
  });

  // Regression (was a bug): when the executor is back within the SDK's checkpoint retries (5 tries
  // from 100 ms, ~1.5 s), it releases the dead process's leases and re-dispatches the run while the
  // dead process's request still executes on the app. That request's retried checkpoint must be
  // stale: `qi_id` names the dispatch (`<item>~<lease owner>`), not just the queue item.
  it("kill -9 of the executor and a restart within the SDK's checkpoint retries: no step runs twice", async () => {
    await stack.kill("executor", "SIGTERM");
    const doomed = await stack.startExecutor({ crashAt: "executor:after-step-saved@12" });
    const { taskId, runId } = await launchDemo();
    expect(await doomed.exited).toBe(137);
    // The same instance back at once (in process: a child needs seconds just to load).
    const port = Number(new URL(stack.executorUrl).port);
    const fast = await startExecutor({
      databaseUrl: stack.databaseUrl,
      port,
      signingKey: TEST_SIGNING_KEY,
      eventKey: TEST_EVENT_KEY,
      appUrls: [],
      backoffMs: [50, 100, 200],
      instance: `executor@${hostname()}:${port}`,
      log: () => {},
    });
    try {
      expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
      expect(await stack.waitForExecutorRun(runId)).toBe("completed");
      const ev = await loadRunEvidence(stack.db, { taskId, runId });
      await expectCompletedDemo(ev);
      expect(reExecuted(ev)).toEqual([]);
      expect(wastedModelCalls(ev)).toEqual([]);
    } finally {
      await fast.stop();
    }
  });
});

/** Executor attempt numbers of the requests it logged for the run's segments ("run <id> … attempt N → status …"). */
function loggedAttempts(log: string, ev: RunEvidence): number[] {
  return ev.segments.flatMap((segment) =>
    [...log.matchAll(new RegExp(`run ${segment.id} \\S+ (?:discovery|step \\w+) attempt (\\d+) →`, "g"))].map((m) => Number(m[1])),
  );
}

/** The most failed connections to the app any queue item of the run's segments has counted (executor payload `connectFailures`). */
async function connectFailures(runId: string): Promise<number> {
  const segmentIds = (await findExecutorRuns(stack.db, runId)).map((r) => r.id);
  const items = await stack.db.executorQueueItem.findMany({ where: { runId: { in: segmentIds } }, select: { payload: true } });
  return Math.max(0, ...items.map((i) => Number((i.payload as { connectFailures?: unknown } | null)?.connectFailures ?? 0)));
}

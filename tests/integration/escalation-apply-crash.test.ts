import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { launchUntilApprovalAsked } from "../support/escalation-helpers.ts";
import { childNodeArgs } from "../support/child-bundles.ts";
import { useAgentStack } from "../support/fixtures.ts";

// Applying a human decision is atomic or recovered: a process that dies in the middle of applying
// (crash points escalation:apply-before-commit / escalation:applied-before-start) leaves nothing
// stuck in `applying`, and after recovery (the executor's retry of escalation-apply's step, or the
// web app's recovery sweep) the decision is applied exactly once: one resumed run, one email.

const LIMIT = 3;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** Launches the demo requiring approval and waits for its risky_action escalation (the email) and the run's wait on it. */
const untilApprovalAsked = () => launchUntilApprovalAsked(stack, { limit: LIMIT, actor: "apply-crash-test" });

/** Restarts the app child: optionally armed with a crash point, and with the recovery sweep's grace. */
async function restartApp(options: { crashAt?: string; graceMs?: number } = {}) {
  if (stack.app()?.alive()) await stack.kill("app");
  return stack.startApp({ crashAt: options.crashAt, env: { LONGHAUL_RECOVERY_GRACE_MS: String(options.graceMs ?? 30_000) } });
}

/** Runs tests/integration/escalation-apply-crash-child.ts (a handler's request deciding in-request) with `crashAt`; resolves with its exit code and output. */
function decideInChild(escalationId: string, decision: string, crashAt: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    [...childNodeArgs("tests/integration/escalation-apply-crash-child.ts"), stack.databaseUrl, stack.executorUrl, escalationId, decision],
    {
      env: { ...process.env, LONGHAUL_CRASH_AT: crashAt },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

/** What a decision applied exactly once leaves: two runs (the escalated one, one resume that completed), one email, one human step, the escalation applied with that run. */
async function expectAppliedOnce(taskId: string, runId: string, escalationId: string) {
  expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "cancelled"], 120_000)).toBe("completed");
  const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
  expect(runs.map((r) => `${r.cause} ${r.status}`)).toEqual(["initial escalated", "resume completed"]);
  const escalation = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalationId } });
  expect({ status: escalation.status, resultRunId: escalation.resultRunId }).toEqual({ status: "applied", resultRunId: runs[1]!.id });
  expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(1);
  expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(1);
  expect(await stack.db.escalation.count({ where: { status: "applying" } })).toBe(0);
}

describe("a crash while applying a decision", () => {
  it("escalation-apply dies before its commit: nothing is kept, the retry applies it once", async () => {
    const { taskId, runId, escalation } = await untilApprovalAsked();
    const armed = await restartApp({ crashAt: "escalation:apply-before-commit" });
    await stack.decide({ input: { escalationId: escalation.id, decision: "approve", undoSeconds: 1 }, actor: "handler-c" });
    expect(await armed.exited).toBe(137);
    expect(armed.output()).toContain("[fault-injection] crash at escalation:apply-before-commit");
    // Rolled back: still decided (not applying), no resumed run, no human step.
    const after = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
    expect(after.status).toBe("decided");
    expect(await stack.db.run.count({ where: { taskId } })).toBe(1);
    expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(0);
    await restartApp({ graceMs: 2_000 });
    await expectAppliedOnce(taskId, runId, escalation.id);
  });

  it("the handler's request dies in the middle of applying: the recovery sweep applies it once", async () => {
    const { taskId, runId, escalation } = await untilApprovalAsked();
    await restartApp({ graceMs: 600_000 }); // no sweep applies it before the restart below
    const { code, output } = await decideInChild(escalation.id, "approve", "escalation:apply-before-commit");
    expect(code, output).toBe(137);
    const after = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
    expect({ status: after.status, decision: after.decision, decidedBy: after.decidedBy }).toEqual({
      status: "decided",
      decision: "approve",
      decidedBy: "crash-handler",
    });
    expect(await stack.db.run.count({ where: { taskId } })).toBe(1);
    await restartApp({ graceMs: 500 });
    // The sweep logs after applying and sending the start.
    await waitFor(
      "the sweep to apply the decision",
      () => new RegExp(`\\[recovery\\] escalation decisions: .*applied \\["${escalation.id}"\\]`).test(stack.app()!.output()),
      60_000,
      100,
    );
    await expectAppliedOnce(taskId, runId, escalation.id);
  });

  it("the handler's request dies after the commit, before starting the run: the sweep starts it once", async () => {
    const { taskId, runId, escalation } = await untilApprovalAsked();
    await restartApp({ graceMs: 600_000 }); // no sweep applies it before the restart below
    const { code, output } = await decideInChild(escalation.id, "approve", "escalation:applied-before-start");
    expect(code, output).toBe(137);
    const after = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
    expect(after.status).toBe("applied");
    const resumed = await stack.db.run.findUniqueOrThrow({ where: { id: after.resultRunId! } });
    expect(resumed.status).toBe("running");
    expect(await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).toMatchObject({ status: "queued" });
    await restartApp({ graceMs: 500 });
    await expectAppliedOnce(taskId, runId, escalation.id);
    expect(stack.app()!.output()).toMatch(new RegExp(`start re-sent \\["${escalation.id}"\\]`));
  });
});

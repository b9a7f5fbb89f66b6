import { describe, expect, it } from "vitest";
import { getEscalationCardOrThrow } from "../../server/db/escalation-queries.ts";
import { APPLY_RETRY_BASE_MS } from "../../server/domain/apply-escalation-decision.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { launchUntilApprovalAsked } from "../support/escalation-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// escalation-apply failing for good (every end someone can act on): its retries used up on
// a decision that cannot be applied (here: the checkpoint it must copy with the handler's fact edits
// is gone), its onFailure records the failure on the escalation and the run's timeline and leaves
// the row `decided` — never `applying` — and once the cause is fixed the web app's recovery sweep
// applies it exactly once: one resumed run that completes, one email.

const LIMIT = 3;
let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** The executor's runs of a function for one escalation (`functionId` e.g. longhaul-escalation-apply), with status. */
async function functionRuns(functionId: string, escalationId: string) {
  return stack.db.$queryRaw<{ id: string; status: string }[]>`
    SELECT id, status FROM executor_run
    WHERE "functionId" = ${functionId} AND (event->'data'->>'escalationId' = ${escalationId} OR event->'data'->'event'->'data'->>'escalationId' = ${escalationId})
    ORDER BY "createdAt", id`;
}

describe("escalation-apply fails for good", () => {
  it("the failure is recorded, the escalation stays decided, and the recovery sweep applies it once the cause is fixed", async () => {
    const { taskId, runId, escalation } = await launchUntilApprovalAsked(stack, { limit: LIMIT, actor: "apply-failure-test" });
    expect(escalation.checkpointId).not.toBeNull();

    // Approve with a fact edit and a 2 s undo window; inside the window the checkpoint it must copy goes missing.
    await stack.decide({
      input: { escalationId: escalation.id, decision: "approve", factEdits: { "operator:note": "checked by a human" }, undoSeconds: 2 },
      actor: "handler-f",
    });
    await stack.db.escalation.update({ where: { id: escalation.id }, data: { checkpointId: "cp_gone" } });

    // escalation-apply tries (1 + 10 retries), fails for good, and its onFailure records why.
    const failed = await waitFor(
      "escalation-apply's onFailure to record the failure",
      async () => {
        const e = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
        return e.applyFailures > 0 ? e : undefined;
      },
      90_000,
      100,
    );
    expect(failed).toMatchObject({ status: "decided", decision: "approve", applyFailures: 1, resultRunId: null });
    expect(failed.applyError).toBeTruthy();
    expect(failed.applyFailedAt).not.toBeNull();
    // The handler's card says so (escalation.get), with the error the app recorded.
    const card = await getEscalationCardOrThrow({ prisma: stack.db, escalationId: escalation.id });
    expect({ applyFailures: card.applyFailures, applyError: card.applyError }).toEqual({ applyFailures: 1, applyError: failed.applyError });
    expect((await functionRuns("longhaul-escalation-apply", escalation.id)).map((r) => r.status)).toEqual(["failed"]);
    expect((await functionRuns("longhaul-escalation-apply-failure", escalation.id)).map((r) => r.status)).toEqual(["completed"]);
    // Visible on the escalated run's timeline, at the human step.
    const alert = await stack.db.alert.findFirstOrThrow({ where: { runId, stepId: `human-${escalation.stepId}`, kind: "error" } });
    expect(alert.severity).toBe("critical");
    expect(alert.message).toBe(`The approve decision could not be applied: ${failed.applyError}. It stays decided; the recovery sweep applies it again later.`);
    // Nothing of the failed attempts was kept: no resumed run, no human step, nothing left applying.
    expect(await stack.db.run.count({ where: { taskId } })).toBe(1);
    expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(0);
    expect(await stack.db.escalation.count({ where: { id: escalation.id, status: "applying" } })).toBe(0);

    // The cause fixed, the app's recovery sweep (short grace and retry wait) applies it, once.
    await stack.db.escalation.update({ where: { id: escalation.id }, data: { checkpointId: escalation.checkpointId } });
    if (stack.app()?.alive()) await stack.kill("app");
    await stack.startApp({ env: { LONGHAUL_RECOVERY_GRACE_MS: "500", LONGHAUL_RECOVERY_RETRY_MS: "500" } });
    // The sweep honours LONGHAUL_RECOVERY_RETRY_MS: counted from a failure stamped now, it applies the
    // decision long before the default first retry wait (APPLY_RETRY_BASE_MS) could have passed.
    const failureStampedAt = new Date();
    await stack.db.escalation.updateMany({ where: { id: escalation.id, status: "decided" }, data: { applyFailedAt: failureStampedAt } });
    await waitFor(
      "the sweep to apply the decision",
      () => new RegExp(`\\[recovery\\] escalation decisions: .*applied \\["${escalation.id}"\\]`).test(stack.app()!.output()),
      60_000,
      100,
    );
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "cancelled"], 120_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause} ${r.status}`)).toEqual(["initial escalated", "resume completed"]);
    const applied = await stack.db.escalation.findUniqueOrThrow({ where: { id: escalation.id } });
    expect({ status: applied.status, resultRunId: applied.resultRunId, applyError: applied.applyError, applyFailures: applied.applyFailures }).toEqual({
      status: "applied",
      resultRunId: runs[1]!.id,
      applyError: null,
      applyFailures: 1,
    });
    expect(applied.appliedAt!.getTime() - failureStampedAt.getTime()).toBeLessThan(APPLY_RETRY_BASE_MS);
    // The handler's fact edit reached the resumed run, and the email went out once.
    const resumedFrom = await stack.db.checkpoint.findUniqueOrThrow({ where: { id: applied.fromCheckpointForResult! } });
    expect(resumedFrom.reason).toBe("human_edit");
    expect((resumedFrom.workingSet as Record<string, unknown>)["operator:note"]).toBe("checked by a human");
    expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(1);
    expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(1);
  });
});

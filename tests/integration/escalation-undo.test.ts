import { describe, expect, it } from "vitest";
import { prismaClaimPorts, readDecision } from "../../server/db/escalation-repository.ts";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import {
  applyDecisionNow,
  claimEscalation,
  releaseEscalation,
  undoEscalationDecision,
  type EscalationDecision,
} from "../../server/domain/decide-escalation.ts";
import { AppError } from "../../server/errors.ts";
import { findExecutorRuns, waitFor, type AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { isoUtc } from "../../lib/contracts/dates.ts";

// The undo window on the real pieces (app child serving agent-run and escalation-apply, executor
// child, scripted model, PostgreSQL): a decision made with undoSeconds is only recorded; undone inside
// its window nothing happens; left alone, escalation-apply applies it when the window ends, the
// resumed run completes and the waiting run ends; after the window an undo is refused.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** Launches the loop scenario (it escalates on its 3rd identical call) as `undo-test`. */
const launchLoop = () => stack.launch({ input: { goal: SCENARIO_GOAL, profile: "scripted-loop" }, actor: "undo-test" });

function decide(escalationId: string, decision: EscalationDecision, extra: Record<string, unknown>, actor = "handler-a") {
  return stack.decide({ input: { escalationId, decision, ...extra }, actor });
}

function undo(escalationId: string, actor = "handler-a") {
  return undoEscalationDecision({ input: { escalationId }, actor, ports: stack.decidePorts() });
}

/** The executor's runs of escalation-apply for one escalation, oldest first, with their output. */
async function applyRuns(escalationId: string) {
  return stack.db.$queryRaw<{ id: string; status: string; output: { outcome?: string; resumedAs?: string | null } | null; applyAt: string }[]>`
    SELECT id, status, output, event->'data'->>'applyAt' AS "applyAt" FROM executor_run
    WHERE "functionId" = 'longhaul-escalation-apply' AND event->'data'->>'escalationId' = ${escalationId}
    ORDER BY "createdAt", id`;
}

describe("escalation undo window", () => {
  it("an undone decision does nothing; a decision left alone is applied by escalation-apply after its window; an undo after that is refused", async () => {
    const { taskId, runId } = await launchLoop();
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);

    // 1. Decide with a 3 s window: recorded only, not applied; the waiting run sees it as not due.
    const first = await decide(esc.id, "resume", { guidance: "first try", undoSeconds: 3 });
    expect(first.applyAt).not.toBeNull();
    const recorded = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
    expect(recorded).toMatchObject({ status: "decided", decision: "resume", decidedBy: "handler-a", guidance: "first try" });
    expect(recorded.applyAfter!.getTime() - recorded.decidedAt!.getTime()).toBe(3_000);
    expect(recorded.applyAfter!.toISOString()).toBe(first.applyAt);
    expect(await readDecision({ prisma: stack.db, escalationId: esc.id })).toMatchObject({ status: "decided", due: false });

    // 2. Undo inside the window: open again, decision fields cleared, the undo on the timeline.
    const notYours = await undo(esc.id, "handler-b").catch((e: unknown) => e);
    expect((notYours as Error).message).toMatch(/only handler-a, who decided/);
    const undone = await undo(esc.id, "handler-a");
    expect(undone).toMatchObject({ undone: "resume", decidedBy: "handler-a", undoneBy: "handler-a" });
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({
      status: "open",
      decision: null,
      decidedBy: null,
      decidedAt: null,
      applyAfter: null,
      guidance: null,
    });
    const undoStep = await stack.db.step.findFirstOrThrow({ where: { runId, kind: "human", stepId: { startsWith: "undo-" } } });
    expect(undoStep.summary).toContain("undo by handler-a");
    expect(undoStep.output).toMatchObject({ undoneBy: "handler-a" });

    // A second undo has nothing to undo.
    const again = await undo(esc.id).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(AppError);
    expect((again as AppError).code).toBe("CONFLICT");

    // 3. Decide again with a 1 s window and leave it: escalation-apply applies it after the window.
    const second = await decide(esc.id, "resume", { guidance: "Stop listing the folder: read the README and finish.", undoSeconds: 1 });
    const applied = await waitFor(
      "escalation-apply to apply the second decision",
      async () => {
        const e = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
        return e.status === "applied" ? e : undefined;
      },
      30_000,
      100,
    );
    expect(applied.appliedAt!.getTime()).toBeGreaterThanOrEqual(new Date(second.applyAt!).getTime());
    expect(applied).toMatchObject({ decision: "resume", decidedBy: "handler-a" });

    // The resumed run completes; the waiting run (the escalated initial one) ends, naming the resumed run.
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "cancelled"], 60_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause}:${r.status}`)).toEqual(["initial:escalated", "resume:completed"]);
    expect(runs[1]!.guidance).toBe("Stop listing the folder: read the README and finish.");
    expect(applied.resultRunId).toBe(runs[1]!.id);
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const waiting = (await findExecutorRuns(stack.db, runId)).at(-1)!;
    expect(waiting.output).toMatchObject({ status: "escalated", decision: "resume", resumedAs: runs[1]!.id });

    // The first (undone) decision's escalation-apply woke after its window and left the row alone; the second applied it.
    const applies = await waitFor(
      "both escalation-apply runs to end",
      async () => {
        const r = await applyRuns(esc.id);
        return r.length === 2 && r.every((x) => x.status === "completed") ? r : undefined;
      },
      30_000,
      100,
    );
    expect(applies.map((a) => `${a.applyAt === first.applyAt ? "first" : "second"}:${a.output?.outcome}`).sort()).toEqual([
      "first:superseded",
      "second:applied",
    ]);
    // One human step for the decision, one for the undo.
    expect((await stack.db.step.findMany({ where: { runId, kind: "human" }, orderBy: { index: "asc" } })).map((s) => s.stepId.split("-")[0])).toEqual([
      "undo",
      "human",
    ]);

    // 4. Too late: undo after the window is refused, saying when it was applied.
    const late = await undo(esc.id).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(AppError);
    expect((late as AppError).code).toBe("CONFLICT");
    expect((late as AppError).message).toContain(`already applied at ${isoUtc(applied.appliedAt!)}`);
    expect(await stack.db.run.count({ where: { taskId } })).toBe(2);
  });

  it("Apply now ends the window: applied at once, the same click twice resumes once, and the pending escalation-apply finds it superseded", async () => {
    const { taskId, runId } = await launchLoop();
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    const decided = await decide(esc.id, "resume", { guidance: "Stop listing the folder: read the README and finish.", undoSeconds: 5 });
    const applyNow = (actor: string) => applyDecisionNow({ input: { escalationId: esc.id }, actor, ports: stack.decidePorts() });

    // Only the handler who decided may end the window.
    const notYours = (await applyNow("handler-b").catch((e: unknown) => e)) as AppError;
    expect(notYours.code).toBe("CONFLICT");
    expect(notYours.message).toMatch(/only handler-a, who decided \(resume by handler-a\), can apply it early/);

    // A double click: two calls at once apply it once.
    const both = await Promise.all([applyNow("handler-a"), applyNow("handler-a")]);
    expect(both.map((r) => r.alreadyDue).sort()).toEqual([false, true]);
    const applied = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
    expect(applied.status).toBe("applied");
    expect(applied.appliedAt!.getTime()).toBeLessThan(new Date(decided.applyAt!).getTime());
    expect(applied.applyAfter!.getTime()).toBeLessThan(new Date(decided.applyAt!).getTime());

    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "cancelled"], 60_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause}:${r.status}`)).toEqual(["initial:escalated", "resume:completed"]);
    expect(applied.resultRunId).toBe(runs[1]!.id);
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");

    // The escalation-apply that slept until the old window's end wakes and leaves the row alone.
    const applies = await waitFor(
      "escalation-apply to end",
      async () => {
        const r = await applyRuns(esc.id);
        return r.length === 1 && r[0]!.status === "completed" ? r : undefined;
      },
      30_000,
      100,
    );
    expect(applies[0]!.output?.outcome).toBe("superseded");
    expect(await stack.db.run.count({ where: { taskId } })).toBe(2);
    // Too late to undo it now.
    expect(((await undo(esc.id).catch((e: unknown) => e)) as AppError).message).toMatch(/already applied/);
  });

  it("an undo racing the end of the window either wins (nothing applied) or is refused (applied once)", async () => {
    const { taskId } = await launchLoop();
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    const decided = await decide(esc.id, "dead_end", { deadEndReason: "nothing to find", undoSeconds: 1 });
    // Try to undo right at the end of the window (by the database clock).
    await waitFor(
      "the window's last 50 ms",
      async () => {
        const [row] = await stack.db.$queryRaw<{ ms: number }[]>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`;
        return row!.ms >= new Date(decided.applyAt!).getTime() - 50 ? true : undefined;
      },
      5_000,
      5,
    );
    const result = await undo(esc.id).then(
      () => "undone",
      (e: unknown) => (e instanceof AppError && e.code === "CONFLICT" ? "refused" : Promise.reject(e as Error)),
    );
    if (result === "undone") {
      // The apply wakes, finds the row open, and does nothing.
      await waitFor(
        "escalation-apply to end",
        async () => ((await applyRuns(esc.id)).every((r) => r.status === "completed") && (await applyRuns(esc.id)).length === 1 ? true : undefined),
        30_000,
        100,
      );
      expect((await applyRuns(esc.id))[0]!.output?.outcome).toBe("superseded");
      expect((await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).status).toBe("open");
      expect((await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe("waiting_for_human");
    } else {
      expect(await stack.waitForTaskStatus(taskId, ["dead_end"], 30_000)).toBe("dead_end");
      await waitFor(
        "applied",
        async () => ((await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).status === "applied" ? true : undefined),
        30_000,
        100,
      );
    }
  });

  it("two handlers claiming at once: one is on it, the other is told who; take-over names the holder; deciding a claimed one needs an explicit take-over", async () => {
    const { taskId } = await launchLoop();
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await stack.waitForOpenEscalation(taskId);
    const claimPorts = prismaClaimPorts({ prisma: stack.db });
    const claims = await Promise.allSettled(["ann", "bob"].map((actor) => claimEscalation({ input: { escalationId: esc.id }, actor, ports: claimPorts })));
    expect(claims.map((c) => c.status).sort()).toEqual(["fulfilled", "rejected"]);
    const winner = (claims.find((c) => c.status === "fulfilled") as PromiseFulfilledResult<{ claimedBy: string }>).value.claimedBy;
    const loser = winner === "ann" ? "bob" : "ann";
    const refused = (claims.find((c) => c.status === "rejected") as PromiseRejectedResult).reason as AppError;
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(new RegExp(`^${winner} is on this since .*takeOverFrom: "${winner}"`));
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({ claimedBy: winner });

    // Release by the other is refused; an explicit take-over moves it.
    expect(((await releaseEscalation({ input: { escalationId: esc.id }, actor: loser, ports: claimPorts }).catch((e: unknown) => e)) as AppError).code).toBe(
      "CONFLICT",
    );
    await claimEscalation({ input: { escalationId: esc.id, takeOverFrom: winner }, actor: loser, ports: claimPorts });
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({ claimedBy: loser });

    // Someone not on it is refused, naming the holder; taking it over explicitly decides it,
    // and the claim moves with the decision. Afterwards a new claim is refused.
    const blocked = (await decide(esc.id, "dead_end", { deadEndReason: "nothing to find" }, "carl").catch((e: unknown) => e)) as AppError;
    expect(blocked.code).toBe("CONFLICT");
    expect(blocked.message).toContain(`is claimed by ${loser}`);
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({ status: "open", claimedBy: loser });
    await decide(esc.id, "dead_end", { deadEndReason: "nothing to find", takeOverFrom: loser }, "carl");
    expect(await stack.waitForTaskStatus(taskId, ["dead_end"], 30_000)).toBe("dead_end");
    expect(await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).toMatchObject({ status: "applied", decidedBy: "carl", claimedBy: "carl" });
    expect(
      ((await claimEscalation({ input: { escalationId: esc.id }, actor: "dora", ports: claimPorts }).catch((e: unknown) => e)) as AppError).message,
    ).toMatch(/is closed: dead end by carl was applied at/);
  });
});

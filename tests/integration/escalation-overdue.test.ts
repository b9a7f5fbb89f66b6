import { ulid } from "ulid";
import { afterAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { notifyEscalation } from "../../server/db/escalation-notify.ts";
import { openEscalation } from "../../server/db/escalation-repository.ts";
import { testPrincipal } from "../support/principals.ts";
import { taskSummaryJson } from "../../scripts/lib/cli-task.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Overdue is one rule, the same in escalation.list,
// escalation.get, task.get (what the CLI's status prints) and the nav badge — also after an overdue
// reminder moved the escalation along the chain and pushed its dueAt forward. Real PostgreSQL.

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

describe("overdue after a re-escalation", () => {
  it("stays overdue in the list, the card, task.get and the claimant's badge", async () => {
    const suffix = ulid().toLowerCase();
    const profile = await prisma.agentProfile.create({
      data: { name: `esc-overdue-${suffix}`, model: "scripted", tools: [], escalationRole: "handler", escalationChain: ["admin"], escalationDueMinutes: 60 },
    });
    const taskId = `task_${suffix}`;
    const runId = `run_${suffix}`;
    await prisma.task.create({ data: { id: taskId, goal: "Wait for a person", profileId: profile.id, status: "running", stepBudget: 10, workspace: "/tmp" } });
    await prisma.run.create({ data: { id: runId, taskId } });
    const claimant = `ivy-${suffix}`;
    const api = createCaller({ prisma, actor: claimant, principal: testPrincipal(claimant, ["handler"]) });
    // The badge counts every open escalation routed to a handler (earlier test files' too, in the
    // shared test database): this test's one is the change from this baseline.
    const base = await api.escalation.inboxCount();
    const { escalationId } = await openEscalation({
      prisma,
      taskId,
      runId,
      stepId: "escalate-1",
      reason: "loop",
      message: "looping",
      evidence: {},
      checkpointId: null,
      endReason: "loop",
    });
    await prisma.escalation.update({ where: { id: escalationId }, data: { claimedBy: claimant, claimedAt: new Date() } });

    const before = await api.escalation.list({ status: "open" });
    expect(before.find((e) => e.id === escalationId)?.overdue).toBe(false);
    expect(await api.escalation.inboxCount()).toEqual({ open: base.open + 1, overdue: base.overdue });

    // The first reminder, as the run fires it once the due time passed: moves it to admin, dueAt an hour ahead.
    await notifyEscalation({
      prisma,
      escalationId,
      round: 1,
      now: new Date(Date.now() + 61 * 60_000),
      deliver: async () => ({ delivered: true, attempts: 1, status: 200 }),
    });
    const moved = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId } });
    expect(moved.assigneeRole).toBe("admin");
    expect(moved.dueAt.getTime()).toBeGreaterThan(Date.now());

    expect((await api.escalation.list({ status: "open" })).find((e) => e.id === escalationId)?.overdue).toBe(true);
    expect((await api.escalation.get({ escalationId })).overdue).toBe(true);
    expect((await api.task.get({ taskId })).escalations[0]?.overdue).toBe(true);
    // Where the wait is shown, what its next timeout does: reminder 2 of 4, one due time after the last reminder (the card and the run page agree).
    const timeout = (await api.escalation.get({ escalationId })).timeout;
    expect(timeout).toMatchObject({ reminders: 4, remindersSent: 1, nextReminder: 2 });
    expect(timeout?.nextTimeoutAt?.getTime()).toBe(moved.lastNotifiedAt!.getTime() + (timeout?.rearmMinutes ?? 0) * 60_000);
    expect((await api.task.get({ taskId })).escalations[0]?.timeout).toEqual(timeout);
    expect(await api.escalation.inboxCount()).toEqual({ open: base.open + 1, overdue: base.overdue + 1 });

    // Decided: no longer overdue anywhere, and off the badge.
    await prisma.escalation.update({
      where: { id: escalationId },
      data: { status: "applied", decision: "cancel", decidedBy: claimant, decidedAt: new Date() },
    });
    expect((await api.task.get({ taskId })).escalations[0]?.overdue).toBe(false);
    expect((await api.task.get({ taskId })).escalations[0]?.timeout).toBeNull();
    expect(await api.escalation.inboxCount()).toEqual(base);
  });

  it("shows the due time that passed, not the one a reminder pushed ahead, and 'reminders over' the same everywhere", async () => {
    // A 1-minute due time: opened 85 s ago, due 25 s ago; the first reminder moves it along the chain
    // and gives the new role a due time a minute ahead (Escalation.dueAt). The answer was still due 25 s ago.
    const suffix = ulid().toLowerCase();
    const profile = await prisma.agentProfile.create({
      data: { name: `esc-due-${suffix}`, model: "scripted", tools: [], escalationRole: "handler", escalationChain: ["admin"], escalationDueMinutes: 1 },
    });
    const taskId = `task_${suffix}`;
    const runId = `run_${suffix}`;
    await prisma.task.create({
      data: { id: taskId, goal: "Wait for a person", profileId: profile.id, status: "waiting_for_human", stepBudget: 10, workspace: "/tmp" },
    });
    await prisma.run.create({ data: { id: runId, taskId } });
    const api = createCaller({ prisma, actor: "admin", principal: testPrincipal("admin", ["admin", "handler"]) });
    const { escalationId } = await openEscalation({
      prisma,
      taskId,
      runId,
      stepId: "escalate-1",
      reason: "loop",
      message: "looping",
      evidence: {},
      checkpointId: null,
      endReason: "loop",
    });
    const opened = new Date(Date.now() - 85_000);
    const due = new Date(opened.getTime() + 60_000);
    await prisma.escalation.update({ where: { id: escalationId }, data: { createdAt: opened, dueAt: due, notifications: 1, lastNotifiedAt: opened } });
    const deliver = async () => ({ delivered: true, attempts: 1, status: 200 });
    await notifyEscalation({ prisma, escalationId, round: 1, deliver });
    const moved = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId } });
    expect(moved.dueAt.getTime()).toBeGreaterThan(Date.now()); // the new role's due time

    const views = async () => {
      const row = (await api.escalation.list({ status: "open" })).find((e) => e.id === escalationId)!;
      const card = await api.escalation.get({ escalationId });
      const task = await api.task.get({ taskId });
      const cli = taskSummaryJson(task).escalation!;
      return { row, card, inTask: task.escalations[0]!, cli };
    };
    const first = await views();
    for (const v of [first.row, first.card, first.inTask, { ...first.cli, dueAt: new Date(first.cli.dueAt) }]) {
      expect(v.dueAt).toEqual(due);
      expect(v).toMatchObject({ overdue: true, phase: "reminding", remindersSent: 1 });
    }
    expect(first.card.nextReminderAt).toEqual(new Date(moved.lastNotifiedAt!.getTime() + 60_000));
    expect(first.inTask.nextReminderAt).toEqual(first.card.nextReminderAt);
    expect(first.row.nextReminderAt).toEqual(first.card.nextReminderAt);
    expect(first.cli.words).toContain(`Overdue since ${due.toISOString().slice(0, 19)}Z`);

    // Every reminder sent: the task still waits on a human and every view says so, the same way.
    for (const round of [2, 3, 4]) await notifyEscalation({ prisma, escalationId, round, deliver });
    const last = await views();
    for (const v of [last.row, last.card, last.inTask])
      expect(v).toMatchObject({ overdue: true, phase: "reminders_over", remindersSent: 4, nextReminderAt: null });
    expect(last.cli).toMatchObject({ overdue: true, phase: "reminders_over", remindersSent: 4, nextReminderAt: null });
    expect(last.cli.words).toContain("All 4 reminders went out and no more will be sent; the task still waits on a human");
    expect((await api.task.get({ taskId })).status).toBe("waiting_for_human");
  });

  it("claim and release answer the shapes docs/CONTRACTS.md documents", async () => {
    const suffix = ulid().toLowerCase();
    const profile = await prisma.agentProfile.create({ data: { name: `esc-shapes-${suffix}`, model: "scripted", tools: [], escalationRole: "handler" } });
    const taskId = `task_${suffix}`;
    const runId = `run_${suffix}`;
    await prisma.task.create({
      data: { id: taskId, goal: "Wait for a person", profileId: profile.id, status: "waiting_for_human", stepBudget: 10, workspace: "/tmp" },
    });
    await prisma.run.create({ data: { id: runId, taskId } });
    const { escalationId } = await openEscalation({
      prisma,
      taskId,
      runId,
      stepId: "escalate-1",
      reason: "loop",
      message: "looping",
      evidence: {},
      checkpointId: null,
      endReason: "loop",
    });
    const handler = `hal-${suffix}`;
    const api = createCaller({ prisma, actor: handler, principal: testPrincipal(handler, ["handler"]) });

    // Output schemas are strict (server/api/output-schemas.ts): each call below fails on a field the contract does not name.
    const claimed = await api.escalation.claim({ escalationId });
    expect(claimed).toEqual({ escalationId, claimedBy: handler, claimedAt: expect.any(Date) as Date });
    expect(await api.escalation.release({ escalationId })).toEqual({ escalationId, claimedBy: null });
    // decide and undo send events to the executor, which this file does not run: the e2e escalation spec calls them over HTTP.
    expect((await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId } })).status).toBe("open");
  });
});

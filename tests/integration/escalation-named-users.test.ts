import { ulid } from "ulid";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import { createPrismaClient } from "../../server/db/client.ts";
import { resetEnv } from "../../server/env.ts";
import { notifyEscalation } from "../../server/db/escalation-notify.ts";
import { openEscalation } from "../../server/db/escalation-repository.ts";
import { inboxCountsFor, listEscalations } from "../../server/db/escalation-queries.ts";
import { applyProfileDocument, createProfile, updateProfile } from "../../server/db/profile-repository.ts";
import { closeEmailTransports } from "../../server/notify/email.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Escalation chains that name people ("a chain of roles or named users an admin can
// actually assign"): `user:<display name>` entries are checked at profile save (the user exists and
// is not deactivated) and routing honours them — the escalation's assignee, the inbox's "waiting on
// you", the assignee filter and the email recipient. Real PostgreSQL and a local SMTP server.

const prisma = createPrismaClient(testDatabaseUrl());
const savedEnv = { ...process.env };
const suffix = ulid().toLowerCase().slice(-10);
const dana = { id: ulid(), name: `Dana ${suffix}`, email: `dana-${suffix}@example.test` };
const gone = { id: ulid(), name: `Gone ${suffix}`, email: `gone-${suffix}@example.test` };

afterAll(async () => {
  process.env = savedEnv;
  resetEnv();
  closeEmailTransports();
  await prisma.user.deleteMany({ where: { id: { in: [dana.id, gone.id] } } });
  await prisma.$disconnect();
});

beforeEach(() => {
  process.env = { ...savedEnv };
  delete process.env.LONGHAUL_WEBHOOK_URL;
  resetEnv();
});

const spec = (name: string, chain: string[]) => ({ name, model: "scripted", provider: "scripted", escalationRole: "handler", escalationChain: chain });

/** A local SMTP server that keeps each message's envelope recipients. */
async function startSmtp() {
  const mails: { to: string[] }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, done) {
      stream.on("data", () => {});
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address) });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("escalation chains naming users", () => {
  it("refuses at profile save a user who does not exist or is deactivated, naming the field; accepts an active one", async () => {
    await prisma.user.create({ data: { ...dana, roles: ["handler"] } });
    await prisma.user.create({ data: { ...gone, roles: ["handler"], deactivatedAt: new Date() } });
    await expect(createProfile({ prisma, spec: spec(`named-a-${suffix}`, ["admin", `user:Nobody ${suffix}`]) })).rejects.toThrow(
      `escalationChain[1]: "user:Nobody ${suffix}" cannot be assigned: no user has that display name`,
    );
    await expect(createProfile({ prisma, spec: spec(`named-a-${suffix}`, [`user:${gone.name}`]) })).rejects.toThrow(
      `escalationChain[0]: "user:${gone.name}" cannot be assigned: that user is deactivated`,
    );
    await expect(createProfile({ prisma, spec: spec(`named-a-${suffix}`, ["user:"]) })).rejects.toThrow(
      `escalationChain[]: "user:" must be followed by a user's display name`,
    );
    await expect(applyProfileDocument({ prisma, document: { profiles: [spec(`named-b-${suffix}`, [`user:${gone.name}`])] }, actor: "admin" })).rejects.toThrow(
      /profiles\[0\] "named-b-.*": escalationChain\[0\]: .*deactivated/,
    );
    // Display names match case-insensitively, as sign-up keeps them unique.
    const created = await createProfile({ prisma, spec: spec(`named-a-${suffix}`, [`user:${dana.name.toUpperCase()}`]) });
    expect(created.spec.escalationChain).toEqual([`user:${dana.name.toUpperCase()}`]);
    await expect(updateProfile({ prisma, name: `named-a-${suffix}`, spec: spec(`named-a-${suffix}`, [`user:${gone.name}`]) })).rejects.toThrow(/deactivated/);
  });

  it("routes an overdue escalation to the named user: assignee, waiting on them (not on other handlers), the assignee filter and the email", async () => {
    const smtp = await startSmtp();
    try {
      process.env.SMTP_URL = smtp.url;
      process.env.LONGHAUL_MAIL_FROM = "Longhaul <longhaul@example.test>";
      resetEnv();
      const profile = await prisma.agentProfile.findUniqueOrThrow({ where: { name: `named-a-${suffix}` } });
      const taskId = `task_named${suffix}`;
      const runId = `run_named${suffix}`;
      await prisma.task.create({ data: { id: taskId, goal: "Audit", profileId: profile.id, status: "running", stepBudget: 10, workspace: "/tmp" } });
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
      const otherHandler = { name: `other-${suffix}`, roles: ["handler"] };
      const danaMe = { name: dana.name, roles: [] as string[] };

      // Opened: with the handlers.
      const before = [await inboxCountsFor({ prisma, ...otherHandler }), await inboxCountsFor({ prisma, ...danaMe })];
      const r0 = await notifyEscalation({ prisma, escalationId, round: 0 });
      expect(r0.assigneeRole).toBe("handler");

      // First reminder: moved to Dana by name; she gets the email, and it waits on her, not the other handler.
      const r1 = await notifyEscalation({ prisma, escalationId, round: 1, now: new Date(Date.now() + 3_600_000) });
      expect(r1).toMatchObject({ assigneeRole: `user:${dana.name.toUpperCase()}`, reEscalatedTo: `user:${dana.name.toUpperCase()}` });
      expect(r1.email).toEqual({ sent: true, to: [dana.email] });
      expect(smtp.mails.at(-1)!.to).toContain(dana.email);
      const after = [await inboxCountsFor({ prisma, ...otherHandler }), await inboxCountsFor({ prisma, ...danaMe })];
      expect(after[0]!.open).toBe(before[0]!.open - 1);
      expect(after[1]!.open).toBe(before[1]!.open + 1);
      expect(after[1]!.overdue).toBe(before[1]!.overdue + 1);

      const byName = await listEscalations({ prisma, status: "open", assignee: dana.name.toLowerCase() });
      expect(byName.map((e) => e.id)).toContain(escalationId);
      const byRole = await listEscalations({ prisma, status: "open", assignee: "handler" });
      expect(byRole.map((e) => e.id)).not.toContain(escalationId);

      // Deactivated since the save: no email goes, and the result says why.
      await prisma.user.update({ where: { id: dana.id }, data: { deactivatedAt: new Date() } });
      const r2 = await notifyEscalation({ prisma, escalationId, round: 2, now: new Date(Date.now() + 7_200_000) });
      expect(r2.email).toEqual({ sent: false, to: [], error: `no active user named ${dana.name.toUpperCase()}` });
    } finally {
      closeEmailTransports();
      await smtp.close();
    }
  });
});

import { ulid } from "ulid";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { resetEnv } from "../../server/env.ts";
import { chainRoleForRound, notifyEscalation, webhookUrlForRole } from "../../server/db/escalation-notify.ts";
import { openEscalation } from "../../server/db/escalation-repository.ts";
import { SMTPServer } from "smtp-server";
import { closeEmailTransports } from "../../server/notify/email.ts";
import { startReceiver, type Receiver } from "../support/fixtures.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Re-escalation along the profile's escalationChain, against real PostgreSQL (the migrated schema)
// and a local HTTP receiver standing in for the operator's webhook (Slack-compatible JSON).

const prisma = createPrismaClient(testDatabaseUrl());

/** The operator's webhook: each delivery's path, Idempotency-Key and JSON body (emptied before each test). */
let receiver: Receiver<{
  text: string;
  event: string;
  round: number;
  escalation: { id: string; assigneeRole: string | null; reEscalatedTo: string | null; dueAt: string | null; reason: string };
}>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  receiver = await startReceiver();
});

afterAll(async () => {
  process.env = savedEnv;
  resetEnv();
  await receiver.close();
  await prisma.$disconnect();
});

beforeEach(() => {
  receiver.received.length = 0;
  process.env = { ...savedEnv, LONGHAUL_WEBHOOK_URL: `${receiver.url}/hook`, APP_URL: "http://dash.example" };
  delete process.env.LONGHAUL_WEBHOOK_URL_TEAM_LEAD;
  delete process.env.LONGHAUL_WEBHOOK_URL_DIRECTOR;
  resetEnv(); // server/env.ts parses process.env once; each test sets its own
});

/** A profile with `chain`, a task on it, a run, and an escalation opened through the real repository. */
async function openedEscalation(chain: string[], dueMinutes = 60, role = "operator"): Promise<{ escalationId: string; taskId: string }> {
  const suffix = ulid().toLowerCase();
  const profile = await prisma.agentProfile.create({
    data: { name: `esc-notify-${suffix}`, model: "scripted", tools: [], escalationRole: role, escalationChain: chain, escalationDueMinutes: dueMinutes },
  });
  const taskId = `task_${suffix}`;
  const runId = `run_${suffix}`;
  await prisma.task.create({
    data: { id: taskId, goal: "Audit the licenses <of everything>", profileId: profile.id, status: "running", stepBudget: 10, workspace: "/tmp" },
  });
  await prisma.run.create({ data: { id: runId, taskId } });
  const { escalationId } = await openEscalation({
    prisma,
    taskId,
    runId,
    stepId: "escalate-3",
    reason: "loop",
    message: "list_files called 3 times",
    evidence: {},
    checkpointId: null,
    endReason: "loop",
  });
  return { escalationId, taskId };
}

const row = (id: string) => prisma.escalation.findUniqueOrThrow({ where: { id } });

describe("notifyEscalation: re-escalation along the chain", () => {
  it("round 0 → operator; round 1 → team-lead (row, payload, key <id>:1); a repeat of round 1 moves nothing again", async () => {
    const { escalationId } = await openedEscalation(["team-lead"]);
    const opened = await row(escalationId);
    expect(opened.assigneeRole).toBe("operator");

    const r0 = await notifyEscalation({ prisma, escalationId, round: 0 });
    expect(r0).toMatchObject({ round: 0, assigneeRole: "operator", reEscalatedTo: null, recorded: true, sent: true, delivered: true });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.key).toBe(`${escalationId}:0`);
    expect(receiver.received[0]!.body.event).toBe("longhaul/escalation.opened");
    expect(receiver.received[0]!.body.text).toContain("Longhaul needs a human: <http://dash.example/escalations?id=");
    expect(receiver.received[0]!.body.escalation).toMatchObject({ id: escalationId, assigneeRole: "operator", reEscalatedTo: null, reason: "loop" });
    expect(await row(escalationId)).toMatchObject({ assigneeRole: "operator", notifications: 1, dueAt: opened.dueAt });

    // The first reminder comes when the wait times out, i.e. at about dueAt.
    const at1 = new Date(opened.dueAt.getTime() + 1_000);
    const r1 = await notifyEscalation({ prisma, escalationId, round: 1, now: at1 });
    expect(r1).toMatchObject({ round: 1, assigneeRole: "team-lead", reEscalatedTo: "team-lead", recorded: true, sent: true, delivered: true });
    const moved = await row(escalationId);
    expect(moved.assigneeRole).toBe("team-lead");
    expect(moved.notifications).toBe(2);
    expect(moved.dueAt.getTime()).toBe(at1.getTime() + 60 * 60_000);
    expect(moved.lastNotifiedAt?.getTime()).toBe(at1.getTime());
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.key).toBe(`${escalationId}:1`);
    expect(receiver.received[1]!.body.event).toBe("longhaul/escalation.overdue");
    expect(receiver.received[1]!.body.round).toBe(1);
    expect(receiver.received[1]!.body.text).toContain("overdue — re-escalated to team-lead");
    expect(receiver.received[1]!.body.text).toContain(`Answer due by ${moved.dueAt.toISOString()}`);
    expect(receiver.received[1]!.body.escalation).toMatchObject({ assigneeRole: "team-lead", reEscalatedTo: "team-lead", dueAt: moved.dueAt.toISOString() });

    // A retried step (later clock): nothing moves again; the same message goes out with the same key, for the receiver to drop.
    const again = await notifyEscalation({ prisma, escalationId, round: 1, now: new Date(at1.getTime() + 5 * 60_000) });
    expect(again).toMatchObject({ round: 1, assigneeRole: "team-lead", reEscalatedTo: "team-lead", recorded: false });
    expect(await row(escalationId)).toEqual(moved);
    expect(receiver.received.map((d) => d.key)).toEqual([`${escalationId}:0`, `${escalationId}:1`, `${escalationId}:1`]);
    expect(receiver.received[2]!.body).toEqual(receiver.received[1]!.body);
  });

  it("a longer chain moves one role per round and stays on the last; per-role webhook URLs are used when set", async () => {
    process.env.LONGHAUL_WEBHOOK_URL_TEAM_LEAD = `${receiver.url}/team-lead`;
    process.env.LONGHAUL_WEBHOOK_URL_DIRECTOR = `${receiver.url}/director`;
    resetEnv();
    const { escalationId } = await openedEscalation(["team-lead", "director"], 30);
    const due0 = (await row(escalationId)).dueAt;
    await notifyEscalation({ prisma, escalationId, round: 0, now: new Date(due0.getTime() - 30 * 60_000) });
    const roles: string[] = [];
    let clock = due0.getTime();
    for (const round of [1, 2, 3]) {
      clock += 30 * 60_000 + 500;
      const r = await notifyEscalation({ prisma, escalationId, round, now: new Date(clock) });
      roles.push(r.assigneeRole);
      if (round === 3) expect(r.reEscalatedTo).toBeNull(); // already with the last role of the chain: a reminder, not a move
    }
    expect(roles).toEqual(["team-lead", "director", "director"]);
    expect(receiver.received.map((d) => d.path)).toEqual(["/hook", "/team-lead", "/director", "/director"]);
    expect(receiver.received[2]!.body.text).toContain("overdue — re-escalated to director");
    expect(receiver.received[3]!.body.text).toContain("overdue — reminder 3 to director");
    expect((await row(escalationId)).notifications).toBe(4);
  });

  it("an empty chain (the scripted demo profile) keeps the role and the deadline: reminders only", async () => {
    const { escalationId } = await openedEscalation([]);
    const opened = await row(escalationId);
    await notifyEscalation({ prisma, escalationId, round: 0 });
    const r1 = await notifyEscalation({ prisma, escalationId, round: 1, now: new Date(opened.dueAt.getTime() + 1_000) });
    expect(r1).toMatchObject({ assigneeRole: "operator", reEscalatedTo: null, recorded: true });
    expect(await row(escalationId)).toMatchObject({ assigneeRole: "operator", dueAt: opened.dueAt, notifications: 2 });
    expect(receiver.received[1]!.body.text).toContain("overdue — reminder 1 to operator");
    expect(receiver.received[1]!.body.text).not.toContain("re-escalated");
  });

  it("without a webhook URL the round is still recorded and the escalation still moves", async () => {
    delete process.env.LONGHAUL_WEBHOOK_URL;
    resetEnv();
    const { escalationId } = await openedEscalation(["team-lead"]);
    await expect(notifyEscalation({ prisma, escalationId, round: 0 })).resolves.toMatchObject({ sent: false, skipped: "no_webhook_url", recorded: true });
    await expect(notifyEscalation({ prisma, escalationId, round: 1 })).resolves.toMatchObject({
      sent: false,
      skipped: "no_webhook_url",
      assigneeRole: "team-lead",
    });
    expect(await row(escalationId)).toMatchObject({ assigneeRole: "team-lead", notifications: 2 });
    expect(receiver.received).toEqual([]);
  });

  it("a reminder for an escalation decided meanwhile neither moves it nor sends anything", async () => {
    const { escalationId } = await openedEscalation(["team-lead"]);
    await notifyEscalation({ prisma, escalationId, round: 0 });
    await prisma.escalation.update({ where: { id: escalationId }, data: { status: "decided", decision: "cancel", decidedBy: "op", decidedAt: new Date() } });
    await expect(notifyEscalation({ prisma, escalationId, round: 1 })).resolves.toMatchObject({
      sent: false,
      skipped: "not_open",
      recorded: false,
      assigneeRole: "operator",
    });
    expect(await row(escalationId)).toMatchObject({ assigneeRole: "operator", notifications: 1 });
    expect(receiver.received).toHaveLength(1);
  });
});

/** A real SMTP server (smtp-server, the nodemailer project's) on a free port: each message's envelope and raw text. */
async function startSmtp(): Promise<{ url: string; mails: { from: string; to: string[]; raw: string }[]; close: () => Promise<void> }> {
  const mails: { from: string; to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, done) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => (raw += chunk));
      stream.on("end", () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("notifyEscalation: email to the holders of the role (SMTP_URL)", () => {
  it("emails every user holding the escalation's role, once per round, with a stable Message-ID; others get nothing", async () => {
    const smtp = await startSmtp();
    try {
      const role = `mail-${ulid().toLowerCase()}`;
      const [ann, bo] = [`ann-${role}@example.test`, `bo-${role}@example.test`];
      for (const [email, roles] of [
        [ann, [role]],
        [bo, ["manager", role]],
        [`other-${role}@example.test`, ["manager"]],
      ] as const)
        await prisma.user.create({ data: { id: ulid(), name: email.split("@")[0]!, email, roles: [...roles] } });
      process.env.SMTP_URL = smtp.url;
      process.env.LONGHAUL_MAIL_FROM = "Longhaul <longhaul@example.test>";
      resetEnv();

      const { escalationId } = await openedEscalation([], 60, role);
      const r0 = await notifyEscalation({ prisma, escalationId, round: 0 });
      expect(r0.email).toEqual({ sent: true, to: [ann, bo] });
      expect(r0.delivered).toBe(true); // the webhook still goes beside it
      expect(smtp.mails).toHaveLength(1);
      const mail = smtp.mails[0]!;
      expect(mail.from).toBe("longhaul@example.test");
      // The envelope: the two holders (Bcc) and the sender as the visible To.
      expect([...mail.to].sort()).toEqual([ann, bo, "longhaul@example.test"].sort());
      expect(mail.raw).toMatch(/^Subject: Longhaul needs a human: Audit the licenses <of everything>\r?$/m);
      expect(mail.raw).toMatch(new RegExp(`^Message-ID: <${escalationId}\\.0@longhaul>\\r?$`, "m"));
      expect(mail.raw).toContain(`Decide: http://dash.example/escalations?id=${escalationId}`);
      expect(mail.raw).toContain(`Escalated to role: ${role}`);
      expect(mail.raw).not.toMatch(/^(To|Cc):.*ann-/m); // recipients are Bcc: not in the headers

      const r1 = await notifyEscalation({ prisma, escalationId, round: 1, now: new Date(Date.now() + 3_600_000) });
      expect(r1.email).toMatchObject({ sent: true });
      expect(smtp.mails[1]!.raw).toMatch(/^Subject: Overdue \(reminder 1\): Audit/m);
      expect(smtp.mails[1]!.raw).toMatch(new RegExp(`^Message-ID: <${escalationId}\\.1@longhaul>`, "m"));
    } finally {
      closeEmailTransports();
      await smtp.close();
      await prisma.user.deleteMany({ where: { email: { contains: "-mail-" } } });
    }
  });

  it("a deactivated holder of the role receives no escalation email; the active holder does", async () => {
    const smtp = await startSmtp();
    try {
      const role = `mail-${ulid().toLowerCase()}`;
      const [ann, cy] = [`ann-${role}@example.test`, `cy-${role}@example.test`];
      await prisma.user.create({ data: { id: ulid(), name: ann.split("@")[0]!, email: ann, roles: [role] } });
      await prisma.user.create({ data: { id: ulid(), name: cy.split("@")[0]!, email: cy, roles: [role], deactivatedAt: new Date() } });
      process.env.SMTP_URL = smtp.url;
      process.env.LONGHAUL_MAIL_FROM = "Longhaul <longhaul@example.test>";
      resetEnv();
      const { escalationId } = await openedEscalation([], 60, role);
      const r0 = await notifyEscalation({ prisma, escalationId, round: 0 });
      expect(r0.email).toEqual({ sent: true, to: [ann] });
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0]!.to).not.toContain(cy);
      expect(smtp.mails[0]!.to).toContain(ann);
    } finally {
      closeEmailTransports();
      await smtp.close();
      await prisma.user.deleteMany({ where: { email: { contains: "-mail-" } } });
    }
  });

  it("a mail server that is down: the round is recorded, the webhook delivered, the email's failure said in words", async () => {
    const smtp = await startSmtp();
    await smtp.close(); // its port is now closed
    process.env.SMTP_URL = smtp.url;
    resetEnv();
    const role = `mail-${ulid().toLowerCase()}`;
    await prisma.user.create({ data: { id: ulid(), name: `cy-${role}`, email: `cy-${role}@example.test`, roles: [role] } });
    try {
      const { escalationId } = await openedEscalation([], 60, role);
      const r0 = await notifyEscalation({ prisma, escalationId, round: 0 });
      expect(r0).toMatchObject({ recorded: true, delivered: true });
      expect(r0.email).toMatchObject({ sent: false });
      expect(r0.email).toHaveProperty("error", expect.stringMatching(/ECONNREFUSED|connect/i));
      expect((await row(escalationId)).notifications).toBe(1);
    } finally {
      closeEmailTransports();
      await prisma.user.deleteMany({ where: { email: { contains: "-mail-" } } });
    }
  });

  it("without SMTP_URL no email is tried", async () => {
    const { escalationId } = await openedEscalation([]);
    await expect(notifyEscalation({ prisma, escalationId, round: 0 })).resolves.toMatchObject({ email: { sent: false, skipped: "no_smtp_url" } });
  });
});

describe("chain and URL rules", () => {
  it("chainRoleForRound: chain[min(k-1, len-1)], null for round 0 or an empty chain", () => {
    expect([0, 1, 2, 3].map((k) => chainRoleForRound(["a", "b"], k))).toEqual([null, "a", "b", "b"]);
    expect(chainRoleForRound([], 2)).toBeNull();
  });
  it("webhookUrlForRole: LONGHAUL_WEBHOOK_URL_<ROLE> first, then LONGHAUL_WEBHOOK_URL", () => {
    const env = { LONGHAUL_WEBHOOK_URL: "http://all", LONGHAUL_WEBHOOK_URL_TEAM_LEAD: "http://lead", LONGHAUL_WEBHOOK_URL_OPERATOR: "" };
    expect(webhookUrlForRole("team-lead", env)).toBe("http://lead");
    expect(webhookUrlForRole("operator", env)).toBe("http://all");
    expect(webhookUrlForRole("director", {})).toBeNull();
  });
});

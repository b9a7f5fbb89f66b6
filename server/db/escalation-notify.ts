import { env } from "../env.ts";
import type { PrismaClient } from "./client.ts";
import { escalationEmail, sendEmail, type EmailDeliveryResult } from "../notify/email.ts";
import { deliverWebhook, escalationWebhookPayload, type WebhookDeliveryResult } from "../notify/webhook.ts";
import { taskProfile } from "./task-profile.ts";
import { chainRoleForRound } from "../domain/escalation-wait.ts";
import { assigneeUser } from "../../lib/contracts/escalation.ts";

/** Outcome of `notifyEscalation`. */
export interface EscalationNotifyResult {
  round: number;
  /** The escalation's role after this round. */
  assigneeRole: string;
  /** The role this round moved it to (round ≥ 1, non-empty chain), else null. */
  reEscalatedTo: string | null;
  /** False when this call found the round already recorded (a retried step): nothing moved again. */
  recorded: boolean;
  /** A webhook request was made (a URL is configured for the role and the escalation is still open). */
  sent: boolean;
  delivered: boolean;
  attempts: number;
  /** Why nothing was sent, when nothing was. */
  skipped?: "no_webhook_url" | "not_open";
  /** The email of this round (`SMTP_URL` set): addresses accepted by the server, or why none went. */
  email: { sent: boolean; to: string[]; error?: string } | { sent: false; skipped: "no_smtp_url" | "not_open" };
}

/**
 * Email addresses of the active (not deactivated) users who hold `role` (the escalation's role
 * now), at most 100, oldest account first. A named user of an escalation chain gets theirs through {@link emailRecipientsForAssignee}.
 */
export async function emailRecipientsForRole({ prisma, role }: { prisma: PrismaClient; role: string }): Promise<string[]> {
  const users = await prisma.user.findMany({
    where: { roles: { has: role }, deactivatedAt: null },
    select: { email: true },
    orderBy: { createdAt: "asc" },
    take: 100,
  });
  return users.map((u) => u.email).filter((e) => e.includes("@"));
}

/**
 * Email addresses for an escalation's assignee (`assigneeRole`): for a named person
 * (`user:<display name>`, a profile chain's entry) that user's address when the user
 * exists and is not deactivated (display names compared case-insensitively); for a role, every
 * active holder ({@link emailRecipientsForRole}).
 */
export async function emailRecipientsForAssignee({ prisma, assignee }: { prisma: PrismaClient; assignee: string }): Promise<string[]> {
  const name = assigneeUser(assignee);
  if (name === null) return emailRecipientsForRole({ prisma, role: assignee });
  const users = await prisma.user.findMany({
    where: { name: { equals: name, mode: "insensitive" }, deactivatedAt: null },
    select: { email: true },
    take: 1,
  });
  return users.map((u) => u.email).filter((e) => e.includes("@"));
}

/** The role an overdue escalation moves to at reminder `round` (the pure rule lives in server/domain/escalation-wait.ts). */
export { chainRoleForRound };

/**
 * The webhook URL for a role: `LONGHAUL_WEBHOOK_URL_<ROLE>` (role upper-cased, runs of other than
 * A–Z/0–9 as `_`: "team-lead" → LONGHAUL_WEBHOOK_URL_TEAM_LEAD) when set, else LONGHAUL_WEBHOOK_URL,
 * else null. Empty values count as unset.
 */
export function webhookUrlForRole(role: string, vars: Record<string, string | undefined> = webhookVariables()): string | null {
  const key = `LONGHAUL_WEBHOOK_URL_${role.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
  return vars[key] || vars.LONGHAUL_WEBHOOK_URL || null;
}

/** The webhook variables of the validated environment (server/env.ts): LONGHAUL_WEBHOOK_URL and every LONGHAUL_WEBHOOK_URL_<ROLE>. */
function webhookVariables(): Record<string, string | undefined> {
  const e = env();
  return { ...e.roleWebhookUrls, LONGHAUL_WEBHOOK_URL: e.LONGHAUL_WEBHOOK_URL };
}

/**
 * One notification round of an escalation: round 0 when it opens, round k ≥ 1 for the k-th overdue
 * reminder (server/inngest/functions/agent-run.ts calls it inside a step).
 *
 * 1. Records the round on the row, once: a guarded write `where notifications <= round` sets
 *    `notifications = round + 1` and `lastNotifiedAt`; so `notifications` counts the rounds recorded
 *    (opening included), with or without a webhook. For round k ≥ 1 with a non-empty
 *    `escalationChain` on the task's profile, the same write moves `assigneeRole` to
 *    `chainRoleForRound(chain, k)` and pushes `dueAt` one due-period (profile
 *    `escalationDueMinutes`) past the later of the old `dueAt` and now. A retried step finds the round
 *    recorded and moves nothing again. A reminder for an escalation no longer open records nothing.
 * 2. POSTs the message (server/notify/webhook.ts; JSON, Slack-compatible `text` — for a move
 *    "overdue — re-escalated to <role>") to `webhookUrlForRole(assigneeRole)`, with
 *    `Idempotency-Key: <escalationId>:<round>`, the same on a retried step, so the receiver can drop
 *    the repeat. No URL → nothing sent.
 * 3. With `SMTP_URL` set, emails the round (server/notify/email.ts) to every user holding the
 *    escalation's role now, or to the person a chain entry `user:<display name>` names
 *    ({@link emailRecipientsForAssignee}), Message-ID `<escalationId.round@longhaul>`.
 *
 * Delivery failures never throw (they are returned and logged). @throws Prisma's NotFound when the
 * escalation does not exist, and database errors (the step retries).
 */
export async function notifyEscalation({
  prisma,
  escalationId,
  round,
  now = new Date(),
  deliver = deliverWebhook,
  send = sendEmail,
}: {
  prisma: PrismaClient;
  escalationId: string;
  /** 0 at opening, k ≥ 1 for the k-th overdue reminder (integer). */
  round: number;
  now?: Date;
  /** Injectable for tests; default the retrying webhook delivery. */
  deliver?: (args: { url: string; payload: ReturnType<typeof escalationWebhookPayload>; idempotencyKey: string }) => Promise<WebhookDeliveryResult>;
  /** Injectable for tests; default nodemailer through `SMTP_URL`. */
  send?: typeof sendEmail;
}): Promise<EscalationNotifyResult> {
  if (!Number.isInteger(round) || round < 0) throw new RangeError(`round: must be an integer ≥ 0, got ${round}`);
  const before = await prisma.escalation.findUniqueOrThrow({
    where: { id: escalationId },
    include: { task: { select: { goal: true } } },
  });
  const profile = (await taskProfile({ prisma, taskId: before.taskId })).spec;
  const target = chainRoleForRound(profile.escalationChain, round);
  if (round > 0 && before.status !== "open") {
    return {
      round,
      assigneeRole: before.assigneeRole,
      reEscalatedTo: null,
      recorded: false,
      sent: false,
      delivered: false,
      attempts: 0,
      skipped: "not_open",
      email: { sent: false, skipped: "not_open" },
    };
  }
  const dueAt = new Date(Math.max(before.dueAt.getTime(), now.getTime()) + profile.escalationDueMinutes * 60_000);
  const written = await prisma.escalation.updateMany({
    where: { id: escalationId, notifications: { lte: round }, ...(round > 0 ? { status: "open" } : {}) },
    data: { notifications: round + 1, lastNotifiedAt: now, ...(target ? { assigneeRole: target, dueAt } : {}) },
  });
  const e = written.count > 0 ? await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId } }) : before;
  // The role this round moved it to: deterministic from the chain (so a retried step reports the same);
  // "moved" only when it differs from the role before this round.
  const previousRole = round <= 1 ? profile.escalationRole : chainRoleForRound(profile.escalationChain, round - 1);
  const reEscalatedTo = target && e.assigneeRole === target && target !== previousRole ? target : null;
  const base = { round, assigneeRole: e.assigneeRole, reEscalatedTo, recorded: written.count > 0 };

  const appUrl = (env().APP_URL ?? `http://127.0.0.1:${env().PORT}`).replace(/\/+$/, "");
  const notice = {
    id: e.id,
    taskId: e.taskId,
    taskTitle: before.task.goal.slice(0, 120),
    runId: e.runId,
    reason: e.reason,
    message: e.message,
    taskUrl: `${appUrl}/escalations?id=${e.id}`,
    dueAt: e.dueAt,
    assigneeRole: e.assigneeRole,
    round,
    reEscalatedTo,
  };
  const url = webhookUrlForRole(e.assigneeRole);
  const [email, hook] = await Promise.all([
    emailRound({ prisma, role: e.assigneeRole, notice, send }),
    url ? deliver({ url, payload: escalationWebhookPayload(notice), idempotencyKey: `${e.id}:${round}` }) : null,
  ]);
  if (!hook) return { ...base, sent: false, delivered: false, attempts: 0, skipped: "no_webhook_url", email };
  if (!hook.delivered)
    console.error(`[longhaul] webhook for escalation ${e.id} (round ${round}) not delivered after ${hook.attempts} attempt(s): ${hook.error ?? hook.status}`);
  return { ...base, sent: true, delivered: hook.delivered, attempts: hook.attempts, email };
}

/** The email of one round (server/notify/email.ts) to the holders of `role` (or the person it names, `user:<display name>`), when `SMTP_URL` is set; never throws. */
async function emailRound({
  prisma,
  role,
  notice,
  send,
}: {
  prisma: PrismaClient;
  role: string;
  notice: Parameters<typeof escalationEmail>[0];
  send: typeof sendEmail;
}): Promise<EscalationNotifyResult["email"]> {
  const { SMTP_URL: smtpUrl, LONGHAUL_MAIL_FROM: from } = env();
  if (!smtpUrl) return { sent: false, skipped: "no_smtp_url" };
  const to = await emailRecipientsForAssignee({ prisma, assignee: role });
  if (to.length === 0) {
    const user = assigneeUser(role);
    return { sent: false, to: [], error: user !== null ? `no active user named ${user}` : `no user holds role ${role}` };
  }
  const result: EmailDeliveryResult = await send({ smtpUrl, from, to, email: escalationEmail(notice) });
  if (!result.sent) console.error(`[longhaul] email for escalation ${notice.id} (round ${notice.round}) not sent: ${result.error}`);
  return result.sent ? { sent: true, to: result.accepted } : { sent: false, to: [], error: result.error };
}

import { createTransport, type Transporter } from "nodemailer";
import type SMTPPool from "nodemailer/lib/smtp-pool";
import type { EscalationNotice } from "./webhook.ts";
import { assigneeUser } from "../../lib/contracts/escalation.ts";

/**
 * Email notifier for escalations ("Escalations reach a person": "email when a mail server is
 * configured"). Sends through the team's own SMTP server with nodemailer; configured by `SMTP_URL`
 * (nodemailer's connection URL: `smtp://user:pass@host:587`, `smtps://…:465`; credentials in the URL
 * are the server's, never stored by Longhaul) and `LONGHAUL_MAIL_FROM`.
 *
 * Delivery contract: one message per notification round, to every recipient at once (Bcc, so
 * handlers do not see each other's addresses); its `Message-ID` is `<escalationId.round@longhaul>`,
 * the same when a crashed step sends the round again, so mail clients that thread or dedupe by
 * Message-ID show one message. Failures never throw: they are returned (and logged by the caller).
 */

/** The subject and plain-text body of an escalation email. */
export interface EscalationEmail {
  subject: string;
  text: string;
  messageId: string;
}

/** Subjects are cut to this many characters (RFC 5322 recommends lines of at most 78). */
const MAX_SUBJECT_CHARS = 78;

/**
 * The email for escalation `notice` at its round: round 0 "Longhaul needs a human: <task>", round k
 * "Overdue (reminder k): <task>" or "Overdue — re-escalated to <role>: <task>"; the body says why the
 * run stopped, the detail, who it waits on, the due time (ISO 8601 UTC) and the link to decide. Plain
 * text: nothing from the task or the model is interpreted as markup. Pure.
 */
export function escalationEmail(notice: EscalationNotice): EscalationEmail {
  const round = notice.round ?? 0;
  const task = (notice.taskTitle ?? `task ${notice.taskId}`).replace(/\s+/g, " ").trim();
  const reEscalatedTo = round > 0 ? (notice.reEscalatedTo ?? null) : null;
  const prefix =
    round === 0
      ? "Longhaul needs a human"
      : reEscalatedTo
        ? `Overdue — re-escalated to ${assigneeUser(reEscalatedTo) ?? reEscalatedTo}`
        : `Overdue (reminder ${round})`;
  const full = `${prefix}: ${task}`;
  const subject = full.length > MAX_SUBJECT_CHARS ? `${full.slice(0, MAX_SUBJECT_CHARS - 1)}…` : full;
  const dueAt = notice.dueAt === null ? null : new Date(notice.dueAt).toISOString();
  const text = [
    round === 0 ? `A Longhaul run stopped and waits for a human decision (${notice.reason}).` : `This escalation (${notice.reason}) is still waiting.`,
    "",
    `Task: ${task}`,
    ...(notice.message ? [`Why: ${notice.message}`] : []),
    ...(notice.assigneeRole
      ? [assigneeUser(notice.assigneeRole) !== null ? `Escalated to: ${assigneeUser(notice.assigneeRole)}` : `Escalated to role: ${notice.assigneeRole}`]
      : []),
    dueAt ? `Answer due by: ${dueAt}` : "No deadline.",
    "",
    `Decide: ${notice.taskUrl}`,
    "",
    "You receive this because you hold that role in Longhaul.",
  ].join("\n");
  return { subject, text, messageId: `<${notice.id}.${round}@longhaul>` };
}

/** Outcome of {@link sendEmail}: addresses the server accepted and refused; `error` when nothing went. */
export interface EmailDeliveryResult {
  sent: boolean;
  accepted: string[];
  rejected: string[];
  error?: string;
}

const transports = new Map<string, Transporter>();

/** One pooled transport per SMTP URL, kept for the process (nodemailer reuses its connections). */
function transportFor(smtpUrl: string): Transporter {
  let t = transports.get(smtpUrl);
  if (!t) {
    const options: SMTPPool.Options = {
      url: smtpUrl,
      pool: true,
      maxConnections: 2,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    };
    t = createTransport(options);
    transports.set(smtpUrl, t);
  }
  return t;
}

/**
 * Sends `email` from `from` to `to` (Bcc; the visible To is the sender) through `smtpUrl`. Returns
 * what the server accepted and refused; never throws (a connection refused, a TLS error, an auth
 * failure come back as `{ sent: false, error }` in words). An empty `to` sends nothing.
 */
export async function sendEmail({
  smtpUrl,
  from,
  to,
  email,
}: {
  smtpUrl: string;
  from: string;
  to: readonly string[];
  email: EscalationEmail;
}): Promise<EmailDeliveryResult> {
  if (to.length === 0) return { sent: false, accepted: [], rejected: [], error: "no recipients" };
  try {
    const info = await transportFor(smtpUrl).sendMail({ from, to: from, bcc: [...to], subject: email.subject, text: email.text, messageId: email.messageId });
    const addr = (a: unknown) => (typeof a === "string" ? a : ((a as { address?: string }).address ?? String(a)));
    const mine = new Set(to.map((a) => a.toLowerCase()));
    const of = (list: unknown[] | undefined) => (list ?? []).map(addr).filter((a) => mine.has(a.toLowerCase()));
    return { sent: true, accepted: of(info.accepted), rejected: of(info.rejected) };
  } catch (error) {
    return { sent: false, accepted: [], rejected: [], error: error instanceof Error ? error.message : String(error) };
  }
}

/** Closes every pooled SMTP connection (tests; a stopping process). */
export function closeEmailTransports(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}

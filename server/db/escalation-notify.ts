import type { PrismaClient } from "./client.ts";
import { deliverWebhook, escalationWebhookPayload } from "../notify/webhook.ts";

/**
 * Notifies the configured webhook (LONGHAUL_WEBHOOK_URL; JSON, Slack-compatible) of an open or
 * overdue escalation, with an idempotency key per escalation and notification round so a retried
 * delivery can be recognised. Records the notification on the row. No URL → nothing sent.
 * Never throws for delivery failures (they are returned and logged).
 */
export async function notifyEscalation({ prisma, escalationId, round }: { prisma: PrismaClient; escalationId: string; round: number }): Promise<{ sent: boolean; delivered: boolean; attempts: number }> {
  const url = process.env.LONGHAUL_WEBHOOK_URL;
  if (!url) return { sent: false, delivered: false, attempts: 0 };
  const e = await prisma.escalation.findUniqueOrThrow({ where: { id: escalationId }, include: { task: { select: { goal: true } } } });
  const appUrl = (process.env.APP_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`).replace(/\/+$/, "");
  const payload = escalationWebhookPayload({
    id: e.id,
    taskId: e.taskId,
    taskTitle: e.task.goal.slice(0, 120),
    runId: e.runId,
    reason: round > 0 ? `${e.reason} (overdue, reminder ${round})` : e.reason,
    message: e.message,
    taskUrl: `${appUrl}/escalations?id=${e.id}`,
    dueAt: e.dueAt,
  });
  const result = await deliverWebhook({ url, payload, idempotencyKey: `${e.id}:${round}` });
  if (!result.delivered) console.error(`[longhaul] webhook for escalation ${e.id} not delivered after ${result.attempts} attempt(s): ${result.error ?? result.status}`);
  await prisma.escalation.update({ where: { id: e.id }, data: { notifications: { increment: 1 }, lastNotifiedAt: new Date() } });
  return { sent: true, delivered: result.delivered, attempts: result.attempts };
}

/**
 * Webhook notifier: POSTs a JSON message (Slack-compatible) to an operator's URL, with retries.
 *
 * Delivery contract (what a receiver can rely on):
 * - `POST <url>`, body = JSON with a top-level `text` (what Slack incoming webhooks display; other
 *   receivers read the structured fields next to it).
 * - Headers `content-type: application/json`, `Idempotency-Key: <key>` — the same on every attempt of
 *   one delivery, so a receiver recognises a retried delivery (IETF draft
 *   "The Idempotency-Key HTTP Header Field") — and `X-Longhaul-Delivery-Attempt: <n>` (1-based).
 * - Retried: network errors and timeouts, 408, 429 (waiting `retry-after` when given, RFC 9110
 *   §10.2.3: delay-seconds or an HTTP date) and 5xx. Any other non-2xx status is final (a 404 or 401
 *   will not heal by itself).
 */

import { assigneeUser } from "../../lib/contracts/escalation.ts";

/** A message body: Slack's `text` plus any structured fields. */
export type WebhookPayload = { text: string } & Record<string, unknown>;

/** Outcome of `deliverWebhook`. `status` = the last HTTP status (null when no response was received). */
export interface WebhookDeliveryResult {
  delivered: boolean;
  attempts: number;
  status: number | null;
  error?: string;
}

/** Default waits before the 2nd, 3rd, 4th and 5th attempt (ms): ~21 s in all, short enough for an escalation to still be fresh. */
export const DEFAULT_WEBHOOK_BACKOFF_MS = [200, 1000, 5000, 15000] as const;

/** A server's `retry-after` above this is not waited for: the delivery gives up (ms). */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Parses `retry-after` (delay-seconds or HTTP date, RFC 9110 §10.2.3) into ms from `now`; null when absent or unparseable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Delivers `payload` to `url` (contract above). Up to `attempts` attempts (default 5); the wait
 * before attempt n+1 is `backoffMs[n-1]` (the last entry repeats), or the server's `retry-after` on a
 * 429/503 that sends one (a `retry-after` above MAX_RETRY_AFTER_MS ends the delivery). Each attempt
 * is aborted after `timeoutMs` (default 10 s) and counts as a network error.
 *
 * Never throws for delivery failures: returns `{ delivered, attempts, status, error? }` where
 * `attempts` is the number of requests made (0 when the URL or payload is unusable). `fetch` is
 * injectable for tests; default the global fetch.
 */
export async function deliverWebhook({
  url,
  payload,
  idempotencyKey,
  attempts = 5,
  backoffMs = DEFAULT_WEBHOOK_BACKOFF_MS,
  fetch: fetchImpl = globalThis.fetch,
  timeoutMs = 10_000,
}: {
  url: string;
  payload: WebhookPayload;
  idempotencyKey: string;
  attempts?: number;
  backoffMs?: readonly number[];
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}): Promise<WebhookDeliveryResult> {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return { delivered: false, attempts: 0, status: null, error: `url: not an http(s) URL` };
  }
  let body: string;
  try {
    body = JSON.stringify(payload);
  } catch (error) {
    return { delivered: false, attempts: 0, status: null, error: `payload: not serialisable as JSON (${(error as Error).message})` };
  }

  const maxAttempts = Math.max(1, Math.floor(attempts));
  let status: number | null = null;
  let error: string | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    let retryAfterMs: number | null = null;
    try {
      const response = await fetchImpl(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "Idempotency-Key": idempotencyKey,
          "X-Longhaul-Delivery-Attempt": String(attempt),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      const text = await response.text().catch(() => "");
      if (response.ok) return { delivered: true, attempts: attempt, status };
      error = `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`;
      if (!isRetryableStatus(status)) return { delivered: false, attempts: attempt, status, error };
      retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    } catch (caught) {
      status = null;
      const e = caught as Error;
      error =
        e.name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : `network error: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ""}`;
    }
    if (attempt === maxAttempts) break;
    if (retryAfterMs !== null && retryAfterMs > MAX_RETRY_AFTER_MS) {
      return { delivered: false, attempts: attempt, status, error: `${error}; retry-after ${retryAfterMs} ms exceeds ${MAX_RETRY_AFTER_MS} ms` };
    }
    const backoff = backoffMs[Math.min(attempt - 1, backoffMs.length - 1)] ?? 0;
    await sleep(retryAfterMs ?? backoff);
  }
  return { delivered: false, attempts: maxAttempts, status, ...(error !== undefined ? { error } : {}) };
}

/**
 * What the escalation message needs, as plain data: the Escalation row's id, taskId, runId, reason,
 * message, dueAt and assigneeRole, plus the task's title, an absolute link the caller builds from
 * APP_URL, and the notification round.
 */
export interface EscalationNotice {
  id: string;
  taskId: string;
  taskTitle?: string;
  runId?: string;
  /** Why the run stopped, e.g. "loop", "stall", "budget", "unresolved_effect". */
  reason: string;
  /** Human-readable detail (the alert message). */
  message?: string;
  /** Absolute URL of the task page in the web app. */
  taskUrl: string;
  /** When a human answer is due (after which the run re-escalates or times out); null = no deadline. */
  dueAt: Date | string | null;
  /** The role the escalation is assigned to now (after any re-escalation of this round), e.g. "operator". */
  assigneeRole?: string;
  /** 0 = the escalation was just opened; k ≥ 1 = the k-th overdue reminder. Default 0. */
  round?: number;
  /** Round ≥ 1: the role this round moved the escalation to (profile's escalationChain), or null when it stayed with its role. */
  reEscalatedTo?: string | null;
}

/**
 * Webhook body for an escalation notification. Slack `text` (mrkdwn link `<url|label>`, reason, role,
 * due time in ISO 8601 UTC):
 * - round 0: "Longhaul needs a human: <task> stopped (<reason>)." — event "longhaul/escalation.opened";
 * - round k ≥ 1: "Longhaul escalation overdue — re-escalated to <role>: …" when the round moved it
 *   (`reEscalatedTo`), else "… overdue — reminder k to <role>: …" — event "longhaul/escalation.overdue".
 * Structured fields next to it for non-Slack receivers: `event`, `round`, and `escalation`
 * { id, taskId, runId, reason, message, taskUrl, dueAt, assigneeRole, reEscalatedTo }.
 */
export function escalationWebhookPayload(escalation: EscalationNotice): WebhookPayload {
  const dueAt = escalation.dueAt === null ? null : new Date(escalation.dueAt).toISOString();
  const round = escalation.round ?? 0;
  // A person the escalation is routed to by name reads as the name, never as `user:<name>`.
  const role = escalation.assigneeRole ? (assigneeUser(escalation.assigneeRole) ?? escalation.assigneeRole) : null;
  const reEscalatedTo = round > 0 ? (escalation.reEscalatedTo ?? null) : null;
  // Slack mrkdwn control characters (https://api.slack.com/reference/surfaces/formatting#escaping).
  const escape = (t: string) => t.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const label = escape(escalation.taskTitle ?? `task ${escalation.taskId}`).replaceAll("|", "¦");
  const link = `<${escalation.taskUrl}|${label}>`;
  const headline =
    round === 0
      ? `:rotating_light: Longhaul needs a human: ${link} stopped (${escape(escalation.reason)}).`
      : reEscalatedTo
        ? `:alarm_clock: Longhaul escalation overdue — re-escalated to ${escape(assigneeUser(reEscalatedTo) ?? reEscalatedTo)}: ${link} stopped (${escape(escalation.reason)}) and is still waiting (reminder ${round}).`
        : `:alarm_clock: Longhaul escalation overdue — reminder ${round}${role ? ` to ${escape(role)}` : ""}: ${link} stopped (${escape(escalation.reason)}) and is still waiting.`;
  const lines = [
    headline,
    ...(escalation.message ? [escape(escalation.message)] : []),
    ...(round === 0 && role ? [`For: ${escape(role)}.`] : []),
    dueAt ? `Answer due by ${dueAt}.` : "No deadline.",
  ];
  return {
    text: lines.join("\n"),
    event: round === 0 ? "longhaul/escalation.opened" : "longhaul/escalation.overdue",
    round,
    escalation: {
      id: escalation.id,
      taskId: escalation.taskId,
      runId: escalation.runId ?? null,
      reason: escalation.reason,
      message: escalation.message ?? null,
      taskUrl: escalation.taskUrl,
      dueAt,
      assigneeRole: role,
      reEscalatedTo,
    },
  };
}

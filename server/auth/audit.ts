import { ulid } from "ulid";
import type { PrismaClient } from "../db/generated/client.ts";
import type { Principal } from "./principal.ts";
import { auditDetailsJson } from "../db/json-columns.ts";

/** Most bytes of an audit row's `details` JSON. */
export const AUDIT_DETAILS_MAX = 4096;
/**
 * Input keys whose values are never written to the audit log: passwords, secrets, a token itself
 * (`token`, `accessToken`, `refresh_token` — a key that ends in "token"), API keys, authorization
 * headers, cookies. Not what merely mentions a token: `tokenBudget` (a number), `tokenId` (which token
 * was acted on), `tokens`, or `apiKeyEnv` (the name of a variable, never its value) stay readable
 * (the audit log redacted `tokenBudget`).
 */
const SECRET_KEY = /pass(word|phrase)?$|^password|secret|token$|api[-_]?key$|authorization|cookie/i;

/** Whether an input key's value is withheld from the audit log ({@link SECRET_KEY}). */
export function isSecretAuditKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

/** `value` with secret-looking keys replaced by "[redacted]", strings over 500 characters cut (pure). */
export function redactForAudit(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (typeof value === "string") return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redactForAudit(v, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, isSecretAuditKey(k) ? "[redacted]" : redactForAudit(v, depth + 1)]),
    );
  }
  return value;
}

/**
 * Writes one audit row for a human action that succeeded: who (`principal`), what (`action`, the
 * procedure), on which task (`taskId`, or looked up from `escalationId`), the redacted input
 * (≤ {@link AUDIT_DETAILS_MAX} bytes, else a note that it was cut). Never throws: an audit write
 * that fails is logged (without the input) and the action stands.
 */
export async function recordAudit({
  prisma,
  principal,
  action,
  input,
  taskId,
  target,
}: {
  prisma: PrismaClient;
  principal: Principal;
  action: string;
  input: unknown;
  taskId?: string | null;
  target?: string | null;
}): Promise<void> {
  try {
    let details: unknown = redactForAudit(input ?? null);
    const json = JSON.stringify(details) ?? "null";
    if (json.length > AUDIT_DETAILS_MAX) details = { truncated: true, bytes: json.length };
    await prisma.auditEvent.create({
      data: {
        id: `aud_${ulid().toLowerCase()}`,
        userId: principal.userId,
        actor: principal.name,
        via: principal.via === "token" ? `token:${principal.tokenId ?? "?"}` : "session",
        action,
        taskId: taskId ?? null,
        target: target ?? null,
        details: auditDetailsJson.encode(details),
      },
    });
  } catch (error) {
    console.error(`[audit] could not record ${action} by ${principal.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

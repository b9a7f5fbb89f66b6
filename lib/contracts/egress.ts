import { z } from "zod";

/**
 * What an entry of an egress allow-list is: a recipient domain or address, an HTTP(S) origin, and
 * what a breach does. The grammar is checked where a list is entered — the deployment's environment
 * (server/env.ts, at boot) and an agent profile (server/domain/profile-spec.ts) — and read by the
 * egress policy (server/domain/egress-policy.ts). It lives in lib/contracts, below both, so the
 * environment (imported by nearly every server folder) does not import the domain. Pure.
 */

export const EGRESS_ON_BREACH = ["escalate", "refuse"] as const;
export type EgressOnBreach = (typeof EGRESS_ON_BREACH)[number];

/** The demo's default recipient domain: the deployment default of `LONGHAUL_EMAIL_ALLOW`. */
export const DEFAULT_EMAIL_ALLOW = "example.com";
/** `LONGHAUL_EMAIL_ALLOW=none`: no recipient is allowed without approval (an empty variable means unset). */
export const EMAIL_ALLOW_NONE = "none";

const domainPattern = /^(\*\.)?(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const addressPattern = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/**
 * One entry of an email allow-list, checked: a domain (`example.com`, `*.example.com`) or an address
 * (`someone@partner.org`). Returns the normalised entry (lower case) or an error message.
 */
export function parseEmailAllowEntry(raw: string): { kind: "domain" | "recipient"; value: string } | { error: string } {
  const value = raw.trim().toLowerCase();
  if (value.includes("@")) return addressPattern.test(value) ? { kind: "recipient", value } : { error: `"${raw}" is not an email address` };
  return domainPattern.test(value) ? { kind: "domain", value } : { error: `"${raw}" is not a domain (example.com or *.example.com)` };
}

/**
 * An origin of an HTTP allow-list (`https://hooks.example.com`, a path is ignored): the normalised
 * origin, or an error message. Only http and https.
 */
export function parseHttpAllowEntry(raw: string): { value: string } | { error: string } {
  const text = raw.trim();
  if (!URL.canParse(text)) return { error: `"${raw}" is not a URL origin (https://hooks.example.com)` };
  const url = new URL(text);
  if (url.protocol !== "http:" && url.protocol !== "https:") return { error: `"${raw}" is not an http(s) origin` };
  return { value: url.origin };
}

/** The entries of a comma-separated list, trimmed, empty ones dropped. */
export function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
}

/** zod check of a comma-separated email allow-list (for server/env.ts), naming each bad entry. */
export const emailAllowListSchema = z.string().superRefine((v, ctx) => {
  if (v.trim().toLowerCase() === EMAIL_ALLOW_NONE) return;
  for (const entry of splitList(v)) {
    const parsed = parseEmailAllowEntry(entry);
    if ("error" in parsed)
      ctx.addIssue({
        code: "custom",
        message: `${parsed.error}; comma-separated domains and addresses, e.g. example.com,*.corp.example,partner@else.org, or "none"`,
      });
  }
});

/** zod check of a comma-separated origin list (for server/env.ts), naming each bad entry. */
export const httpAllowListSchema = z.string().superRefine((v, ctx) => {
  for (const entry of splitList(v)) {
    const parsed = parseHttpAllowEntry(entry);
    if ("error" in parsed)
      ctx.addIssue({ code: "custom", message: `${parsed.error}; comma-separated origins, e.g. https://hooks.example.com,http://127.0.0.1:9000` });
  }
});

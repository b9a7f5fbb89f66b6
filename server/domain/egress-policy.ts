import {
  DEFAULT_EMAIL_ALLOW,
  EGRESS_ON_BREACH,
  EMAIL_ALLOW_NONE,
  parseEmailAllowEntry,
  parseHttpAllowEntry,
  splitList,
  type EgressOnBreach,
} from "../../lib/contracts/egress.ts";

/**
 * The egress policy: where a run's side effects may go without a human's approval. One place for
 * the rule (docs/ARCHITECTURE.md "What leaves the organisation": effects that leave the organisation escalate whatever the
 * task's own setting). Pure: no database, no network; the gateway (server/tools/egress-gate.ts)
 * loads the profile's part and applies it to each call, the launch (server/domain/launch-task.ts)
 * checks a demo's recipients against it before anything is created.
 *
 * Sources, merged by {@link mergeEgressPolicies}:
 * - the deployment: `LONGHAUL_EMAIL_ALLOW` (domains and addresses; default `example.com`, the
 *   demo's), `LONGHAUL_HTTP_ALLOW` (origins; default none), `LONGHAUL_EGRESS_ON_BREACH`
 *   (`escalate`, the default, or `refuse`);
 * - the agent profile: `egressEmailAllow`, `egressHttpAllow` (added to the deployment's lists),
 *   `egressOnBreach` (null = the deployment's; the stricter of the two wins).
 */
export interface EgressPolicy {
  /** Recipient domains, lower case: `example.com` (that domain only) or `*.example.com` (it and its subdomains). */
  emailDomains: string[];
  /** Single recipients allowed wherever their domain is, lower case. */
  emailRecipients: string[];
  /** HTTP(S) origins `http_post` may reach (`https://hooks.example.com`, no path). */
  httpOrigins: string[];
  /** What a breach does: `escalate` (a `risky_action` escalation, sent only after Approve) or `refuse` (never sent). */
  onBreach: EgressOnBreach;
}

function emailLists(entries: readonly string[]): { emailDomains: string[]; emailRecipients: string[] } {
  const emailDomains: string[] = [];
  const emailRecipients: string[] = [];
  for (const entry of entries) {
    const parsed = parseEmailAllowEntry(entry);
    if ("error" in parsed) continue; // validated where it is entered (env at boot, profile schema)
    (parsed.kind === "domain" ? emailDomains : emailRecipients).push(parsed.value);
  }
  return { emailDomains, emailRecipients };
}

function httpList(entries: readonly string[]): string[] {
  return entries.flatMap((e) => {
    const parsed = parseHttpAllowEntry(e);
    return "value" in parsed ? [parsed.value] : [];
  });
}

/** The deployment's egress settings as server/env.ts parses them (env() satisfies it; tests pass their own). */
export interface DeploymentEgressConfig {
  LONGHAUL_EMAIL_ALLOW?: string;
  LONGHAUL_HTTP_ALLOW?: string;
  LONGHAUL_EGRESS_ON_BREACH?: (typeof EGRESS_ON_BREACH)[number];
}

/**
 * The deployment's policy from its configuration (`env()`'s LONGHAUL_EMAIL_ALLOW, LONGHAUL_HTTP_ALLOW,
 * LONGHAUL_EGRESS_ON_BREACH; the caller passes them, the domain reads no process state). Invalid
 * values stop the start in server/env.ts; an invalid entry that got past it is ignored, i.e. not allowed.
 */
export function deploymentEgressPolicy(source: DeploymentEgressConfig): EgressPolicy {
  const emailRaw = source.LONGHAUL_EMAIL_ALLOW?.trim() || DEFAULT_EMAIL_ALLOW;
  const email = emailRaw.toLowerCase() === EMAIL_ALLOW_NONE ? { emailDomains: [], emailRecipients: [] } : emailLists(splitList(emailRaw));
  const onBreach = source.LONGHAUL_EGRESS_ON_BREACH?.trim() === "refuse" ? "refuse" : "escalate";
  return { ...email, httpOrigins: httpList(splitList(source.LONGHAUL_HTTP_ALLOW)), onBreach };
}

/** A profile's part of the policy, as stored on AgentProfile (egressEmailAllow, egressHttpAllow, egressOnBreach). */
export interface ProfileEgress {
  egressEmailAllow?: readonly string[] | null;
  egressHttpAllow?: readonly string[] | null;
  egressOnBreach?: string | null;
}

/**
 * The effective policy of a task: the deployment's lists plus the profile's, and the stricter
 * breach handling of the two (`refuse` beats `escalate`). A profile widens where its agents may
 * send; only an administrator edits profiles.
 */
export function mergeEgressPolicies(deployment: EgressPolicy, profile: ProfileEgress | null | undefined): EgressPolicy {
  const extraEmail = emailLists(profile?.egressEmailAllow ?? []);
  const unique = (xs: string[]) => [...new Set(xs)];
  return {
    emailDomains: unique([...deployment.emailDomains, ...extraEmail.emailDomains]),
    emailRecipients: unique([...deployment.emailRecipients, ...extraEmail.emailRecipients]),
    httpOrigins: unique([...deployment.httpOrigins, ...httpList(profile?.egressHttpAllow ?? [])]),
    onBreach: deployment.onBreach === "refuse" || profile?.egressOnBreach === "refuse" ? "refuse" : "escalate",
  };
}

/** One destination outside the policy, with the rule it breaks in words a handler reads. */
export interface DestinationBreach {
  kind: "email_recipient" | "http_origin";
  /** The argument that names it (`to`, `url`). */
  field: string;
  destination: string;
  /** "recipient outside allowed domains", "origin outside allowed origins". */
  reason: string;
  /** The allow-list it was checked against, for the message. */
  rule: string;
}

function describeEmailRule(policy: EgressPolicy): string {
  const all = [...policy.emailDomains, ...policy.emailRecipients];
  return all.length ? `allowed: ${all.join(", ")}` : "no recipient is allowed (LONGHAUL_EMAIL_ALLOW=none)";
}

/**
 * Whether an email recipient is inside the policy: its address listed, or its domain listed
 * (`example.com`), or under a wildcard domain (`*.example.com` covers example.com and a.example.com).
 * Comparison is case-insensitive; a malformed address is never allowed.
 */
export function emailAllowed(address: string, policy: EgressPolicy): boolean {
  const a = address.trim().toLowerCase();
  const at = a.lastIndexOf("@");
  if (at <= 0 || at === a.length - 1) return false;
  if (policy.emailRecipients.includes(a)) return true;
  const domain = a.slice(at + 1);
  return policy.emailDomains.some((d) => (d.startsWith("*.") ? domain === d.slice(2) || domain.endsWith(d.slice(1)) : domain === d));
}

/** Whether a URL's origin is one of the policy's (exact origin: scheme, host and port). */
export function originAllowed(url: string, policy: EgressPolicy): boolean {
  if (!URL.canParse(url)) return false;
  return policy.httpOrigins.includes(new URL(url).origin);
}

/**
 * The breaches among a call's destinations: each email recipient outside the allowed domains and
 * recipients, each URL whose origin is not allowed. Empty = all inside.
 */
export function checkDestinations(
  destinations: { email?: { field: string; address: string }[]; http?: { field: string; url: string }[] },
  policy: EgressPolicy,
): DestinationBreach[] {
  const breaches: DestinationBreach[] = [];
  for (const { field, address } of destinations.email ?? []) {
    if (!emailAllowed(address, policy)) {
      breaches.push({ kind: "email_recipient", field, destination: address, reason: "recipient outside allowed domains", rule: describeEmailRule(policy) });
    }
  }
  for (const { field, url } of destinations.http ?? []) {
    if (!originAllowed(url, policy)) {
      const origin = URL.canParse(url) ? new URL(url).origin : url;
      breaches.push({
        kind: "http_origin",
        field,
        destination: origin,
        reason: "origin outside allowed origins",
        rule: policy.httpOrigins.length ? `allowed: ${policy.httpOrigins.join(", ")}` : "no origin is allowed (LONGHAUL_HTTP_ALLOW unset)",
      });
    }
  }
  return breaches;
}

/** "demo.emailTo: recipient outside allowed domains (x@y.org; allowed: example.com)": one breach as a message. */
export function describeBreach(b: DestinationBreach, fieldPrefix = ""): string {
  return `${fieldPrefix}${b.field}: ${b.reason} (${b.destination}; ${b.rule})`;
}

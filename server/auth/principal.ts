import type { PrismaClient } from "../db/generated/client.ts";
import { verifyApiToken } from "./api-tokens.ts";
import { normaliseRoles, type Role } from "../../lib/contracts/roles.ts";
import { DEACTIVATED_MESSAGE } from "./user-deactivation.ts";
import { databaseUnavailableCode } from "../db/db-errors.ts";
import { COOKIE_PREFIX } from "./cookie.ts";

/**
 * Who a request acts as: a signed-in person (session cookie) or an API token. `name` is the actor
 * the domain records (launches, claims, decisions): the user's unique display name, or `local-cli`
 * for the local CLI token. Roles are read from the database on every request, so a role change
 * takes effect at once.
 */
export interface Principal {
  userId: string | null;
  name: string;
  email: string | null;
  roles: Role[];
  via: "session" | "token";
  tokenId?: string;
  /** The session's id when `via` is "session" (a password change keeps it and ends the others). */
  sessionId?: string;
}

/** A request's identity: the principal, or null with why (a bad token is not the same as no credentials). */
export type Identity =
  | { principal: Principal; problem: null }
  /** `unavailable`: the session could not be read because the database is down or restarting (its cause's code, server/db/db-errors.ts) — a 503, not "signed out". */
  | { principal: null; problem: string | null; unavailable?: string };

/** The token in `Authorization: Bearer <token>`, or null. */
export function bearerToken(headers: Headers): string | null {
  const value = headers.get("authorization");
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1] ?? null;
}

/**
 * Why a browser's request is refused when it carries a session cookie that no longer names a session
 * (expired, signed out in another tab, ended by an admin): it says what happened and what to do, not
 * how to send an API token. The pages show it with a "Sign in again" link.
 */
export const SESSION_ENDED_MESSAGE = "signed out — your session ended; sign in again";

/** Why a browser's request without any session is refused (signed out in another tab clears the cookie): the browser's words, not the API's. */
export const SIGNED_OUT_MESSAGE = "signed out — sign in again";

/** Whether the request carries a better-auth session cookie (`<COOKIE_PREFIX>.session_token`, `__Secure-` over https). */
function hasSessionCookie(headers: Headers): boolean {
  return SESSION_COOKIE.test(headers.get("cookie") ?? "");
}
const SESSION_COOKIE = new RegExp(`(?:^|;\\s*)(?:__Secure-)?${COOKIE_PREFIX}\\.session_token=`);

/**
 * Resolves the identity of a request: `Authorization: Bearer lh_…` (API token; a bad one is refused
 * even when a cookie is sent too) else better-auth's session cookie. A deactivated user's session
 * is refused with {@link DEACTIVATED_MESSAGE} (their sessions are deleted on deactivation; this
 * also covers one created in the same instant); a session cookie that names no session any more with
 * {@link SESSION_ENDED_MESSAGE}, a browser's request without one with {@link SIGNED_OUT_MESSAGE}.
 * `getSessionUser` is better-auth's session lookup (injected so this stays testable without Next).
 *
 * Bounded: when the database does not answer within `answerWithinMs` (default
 * IDENTITY_ANSWER_WITHIN_MS) — its processes stopped, a hung disk — the identity is
 * `{unavailable: "no_answer"}` (a 503 naming the database), so no request and no page waits on it
 * without end. The lookup itself goes on and is ignored.
 */
export async function identify({
  prisma,
  headers,
  getSessionUser,
  answerWithinMs = IDENTITY_ANSWER_WITHIN_MS,
}: {
  prisma: PrismaClient;
  headers: Headers;
  getSessionUser: (headers: Headers) => Promise<{ id: string; sessionId?: string } | null>;
  answerWithinMs?: number;
}): Promise<Identity> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const noAnswer = new Promise<Identity>((resolve) => {
    timer = setTimeout(() => resolve({ principal: null, problem: null, unavailable: DATABASE_NO_ANSWER }), answerWithinMs);
  });
  try {
    return await Promise.race([lookUp({ prisma, headers, getSessionUser }), noAnswer]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a request's identity may take before the database counts as not answering (ms): a session lookup is one or two indexed reads. */
export const IDENTITY_ANSWER_WITHIN_MS = 5_000;
/** The `unavailable` code of an identity whose lookup the database did not answer in time. */
export const DATABASE_NO_ANSWER = "no_answer";

async function lookUp({
  prisma,
  headers,
  getSessionUser,
}: {
  prisma: PrismaClient;
  headers: Headers;
  getSessionUser: (headers: Headers) => Promise<{ id: string; sessionId?: string } | null>;
}): Promise<Identity> {
  const token = bearerToken(headers);
  if (token) {
    const verified = await verifyApiToken({ prisma, token });
    if ("problem" in verified) return { principal: null, problem: verified.problem };
    const { via, ...rest } = verified.principal;
    return { principal: { ...rest, via }, problem: null };
  }
  let sessionUser: { id: string; sessionId?: string } | null;
  try {
    sessionUser = await getSessionUser(headers);
  } catch (error) {
    const unavailable = databaseUnavailableCode(error);
    if (unavailable) return { principal: null, problem: null, unavailable };
    sessionUser = null;
  }
  // A browser (its fetches carry Sec-Fetch-Site) is told it is signed out; a program without credentials gets the API's hint (server/api/trpc.ts).
  const ended = hasSessionCookie(headers) ? SESSION_ENDED_MESSAGE : headers.has("sec-fetch-site") ? SIGNED_OUT_MESSAGE : null;
  if (!sessionUser) return { principal: null, problem: ended };
  const user = await prisma.user.findUnique({ where: { id: sessionUser.id }, select: { id: true, name: true, email: true, roles: true, deactivatedAt: true } });
  if (!user) return { principal: null, problem: ended };
  if (user.deactivatedAt) return { principal: null, problem: DEACTIVATED_MESSAGE };
  return {
    principal: {
      userId: user.id,
      name: user.name,
      email: user.email,
      roles: normaliseRoles(user.roles),
      via: "session",
      ...(sessionUser.sessionId ? { sessionId: sessionUser.sessionId } : {}),
    },
    problem: null,
  };
}

/**
 * CSRF check for cookie-authenticated writes (OWASP "verifying origin with standard headers"): a
 * request whose `Sec-Fetch-Site` says cross-site / same-site, or whose `Origin` (else `Referer`) is
 * not one of `allowed`, is refused. Requests without those headers (the CLI, scripts) carry no
 * ambient browser credentials of another site and pass; API-token requests are never at risk (a
 * browser does not add the header on its own). Returns the reason to refuse, or null.
 */
export function crossSiteProblem(headers: Headers, allowed: readonly string[]): string | null {
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  const origin = headers.get("origin") ?? refererOrigin(headers.get("referer"));
  if (origin && origin !== "null" && !allowed.includes(origin)) return `cross-site request refused (origin ${origin} is not this app's)`;
  if (origin === "null") return "cross-site request refused (opaque origin)";
  return null;
}

function refererOrigin(referer: string | null): string | null {
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

import { betterAuth } from "better-auth";
import { env, type Env } from "../env.ts";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { APIError } from "better-auth/api";
import { nextCookies } from "better-auth/next-js";
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { PrismaClient } from "../db/generated/client.ts";
import { prisma } from "../db/prisma.ts";
import { ROLES } from "../../lib/contracts/roles.ts";
import { LOCAL_CLI_ACTOR } from "./api-tokens.ts";
import { ulid } from "ulid";
import { DEACTIVATED_MESSAGE, isDeactivated } from "./user-deactivation.ts";

import { COOKIE_PREFIX } from "./cookie.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../lib/contracts/limits.ts";
export { COOKIE_PREFIX };
/** Session lifetime (seconds) unless LONGHAUL_SESSION_DAYS says otherwise: 7 days, refreshed daily while used. */
export const DEFAULT_SESSION_DAYS = 7;
/** Provider id of the configured OIDC provider (callback: /api/auth/oauth2/callback/oidc). */
export const OIDC_PROVIDER_ID = "oidc";

/** The web app's public origin: BETTER_AUTH_URL, else APP_URL, else http://127.0.0.1:$PORT. */
/** The parts of {@link Env} sign-in reads; tests pass their own (`parseEnv({...})`). */
export type AuthConfig = Partial<
  Pick<
    Env,
    | "BETTER_AUTH_URL"
    | "APP_URL"
    | "PORT"
    | "BETTER_AUTH_TRUSTED_ORIGINS"
    | "OIDC_DISCOVERY_URL"
    | "OIDC_CLIENT_ID"
    | "OIDC_CLIENT_SECRET"
    | "OIDC_PROVIDER_NAME"
    | "OIDC_SCOPES"
  >
>;

export function authBaseUrl(source: AuthConfig = env()): string {
  const url = source.BETTER_AUTH_URL || source.APP_URL || `http://127.0.0.1:${source.PORT ?? 3000}`;
  return url.replace(/\/+$/, "");
}

/**
 * Origins allowed to send cookie-authenticated mutations (better-auth's origin check and the tRPC
 * CSRF check): the base URL; for a loopback base URL also its `localhost` / `127.0.0.1` twin (the
 * start banner prints one, a browser may be pointed at the other); plus BETTER_AUTH_TRUSTED_ORIGINS
 * (comma-separated).
 */
export function trustedOrigins(source: AuthConfig = env()): string[] {
  const base = new URL(authBaseUrl(source));
  const origins = new Set([base.origin]);
  if (base.hostname === "127.0.0.1" || base.hostname === "localhost") {
    for (const host of ["127.0.0.1", "localhost"]) origins.add(`${base.protocol}//${host}${base.port ? `:${base.port}` : ""}`);
  }
  for (const o of (source.BETTER_AUTH_TRUSTED_ORIGINS ?? "").split(",")) if (o.trim()) origins.add(o.trim().replace(/\/+$/, ""));
  return [...origins];
}

/** The OIDC provider configured by env (OIDC_DISCOVERY_URL + OIDC_CLIENT_ID [+ OIDC_CLIENT_SECRET]), or null. */
export function oidcConfig(source: AuthConfig = env()) {
  if (!source.OIDC_DISCOVERY_URL || !source.OIDC_CLIENT_ID) return null;
  return {
    providerId: OIDC_PROVIDER_ID,
    name: source.OIDC_PROVIDER_NAME || "single sign-on",
    discoveryUrl: source.OIDC_DISCOVERY_URL,
    clientId: source.OIDC_CLIENT_ID,
    clientSecret: source.OIDC_CLIENT_SECRET || undefined,
    scopes: (source.OIDC_SCOPES || "openid email profile").split(/[\s,]+/).filter(Boolean),
    pkce: true,
    requireIdTokenVerification: true,
  };
}

/**
 * Makes the first user an admin with every role, atomically: under a transaction-scoped advisory
 * lock, `userId` gets all roles only if no user holds `admin` yet (two first sign-ups at the same
 * moment cannot both become admin), with an audit row `auth.firstAdmin` (via `sign-up`) in the same
 * transaction. Returns true when it did.
 */
export async function promoteFirstUser(db: PrismaClient, userId: string): Promise<boolean> {
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('longhaul:first-admin'))`;
    const admins = await tx.user.count({ where: { roles: { has: "admin" } } });
    if (admins > 0) return false;
    const user = await tx.user.update({ where: { id: userId }, data: { roles: [...ROLES] }, select: { name: true, email: true } });
    // The grant no admin made (the first admin's roles were in no audit row).
    await tx.auditEvent.create({
      data: {
        id: `aud_${ulid().toLowerCase()}`,
        userId,
        actor: user.name,
        via: "sign-up",
        action: "auth.firstAdmin",
        target: `${user.name} <${user.email}>`,
        details: { roles: [...ROLES], why: "the first user to sign up becomes admin with every role" },
      },
    });
    return true;
  });
}

/**
 * Actor names no person may hold: the local CLI token's (`local-cli`, which has no user), so a
 * sign-up cannot take over what that token launched or decided.
 */
export const RESERVED_ACTOR_NAMES: readonly string[] = [LOCAL_CLI_ACTOR];

/**
 * A display name as people see it, so that two names that look alike are alike: NFKC (Unicode's
 * compatibility normalisation, as UTS #39 and RFC 8265 PRECIS do for identifiers), without control
 * and format characters (`\p{Cc}`, `\p{Cf}`: zero-width spaces and joiners, bidi overrides and
 * isolates, which made "Hank Handler\u200b" a second Hank Handler and "\u202eevil" read backwards),
 * whitespace runs collapsed to one space, trimmed. Pure.
 */
export function normaliseDisplayName(name: string): string {
  return name
    .normalize("NFKC")
    .replace(/[\p{Cc}\p{Cf}]/gu, "")
    .replace(/\s+/gu, " ")
    .trim();
}

/**
 * A display name no other user has (case-insensitively) and no reserved actor name: `name` itself,
 * else `name (email)`, after {@link normaliseDisplayName}. The name is the actor on launches, claims and decisions (ownership and
 * "only who decided may undo" compare it), so two people must never share one — which is also why
 * a name cannot be changed after sign-up (see the user update hook).
 */
export async function uniqueDisplayName(db: PrismaClient, name: string, email: string): Promise<string> {
  const wanted = normaliseDisplayName(name).slice(0, 100) || email.split("@")[0] || email;
  const reserved = RESERVED_ACTOR_NAMES.some((r) => r.toLowerCase() === wanted.toLowerCase());
  const taken = reserved || (await db.user.findFirst({ where: { name: { equals: wanted, mode: "insensitive" } }, select: { id: true } }));
  return taken ? `${wanted} (${email})`.slice(0, 200) : wanted;
}

/**
 * Refuses a change of display name (better-auth's `update-user` lets a user set any `name`). The
 * name is who owns tasks and who decided escalations: a rename to a colleague's name would act as
 * them, and a freed name could be taken by someone else. Throws APIError FORBIDDEN naming the field.
 */
export function refuseRename(update: Record<string, unknown>, current: string | undefined): void {
  if (update.name === undefined || update.name === current) return;
  throw new APIError("FORBIDDEN", {
    message: "name: a display name cannot be changed after sign-up (it is who launched tasks and decided escalations); ask an admin to create a new account",
  });
}

function createAuth() {
  const db = prisma();
  const oidc = oidcConfig();
  const secret = env().BETTER_AUTH_SECRET;
  if (!secret && env().NODE_ENV === "production") throw new Error("BETTER_AUTH_SECRET is not set (npm start generates one into DATA_DIR)");
  const baseURL = authBaseUrl();
  const days = env().LONGHAUL_SESSION_DAYS ?? DEFAULT_SESSION_DAYS;
  return betterAuth({
    appName: "Longhaul",
    baseURL,
    basePath: "/api/auth",
    secret: secret ?? "longhaul-development-secret-not-for-production-use",
    database: prismaAdapter(db, { provider: "postgresql" }),
    trustedOrigins: trustedOrigins(),
    telemetry: { enabled: false },
    // A password changes through account.changePassword only (audited, other sessions ended, rate
    // limited); better-auth's own endpoint would bypass all three.
    disabledPaths: ["/change-password"],
    emailAndPassword: {
      enabled: env().LONGHAUL_PASSWORD_SIGNIN !== "off",
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      autoSignIn: true,
    },
    session: { expiresIn: Math.round(days * 86_400), updateAge: 86_400 },
    advanced: {
      cookiePrefix: COOKIE_PREFIX,
      useSecureCookies: baseURL.startsWith("https://"),
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" },
    },
    // Sign-in attempts from one address: at most 30 a minute (better-auth's own default, 3 per 10 s, trips a team behind one NAT).
    rateLimit: { window: 60, max: 300, customRules: { "/sign-in/email": { window: 60, max: 30 }, "/sign-up/email": { window: 60, max: 30 } } },
    databaseHooks: {
      // Every way in (password, OIDC) ends in a new session: a deactivated user gets none.
      session: {
        create: {
          before: async (session) => {
            if (await isDeactivated({ prisma: db, userId: session.userId })) throw new APIError("FORBIDDEN", { message: DEACTIVATED_MESSAGE });
          },
        },
      },
      user: {
        create: {
          before: async (user) => {
            if (env().LONGHAUL_SIGNUP === "closed" && (await db.user.count()) > 0) {
              throw new APIError("FORBIDDEN", { message: "sign-up is closed (LONGHAUL_SIGNUP=closed): ask an admin to create your account" });
            }
            return { data: { ...user, name: await uniqueDisplayName(db, user.name, user.email) } };
          },
          after: async (user) => {
            await promoteFirstUser(db, user.id);
          },
        },
        update: {
          before: async (update, context) => {
            if (update.name === undefined) return;
            const id = (context?.context as { session?: { user?: { id?: string } } } | undefined)?.session?.user?.id ?? update.id;
            const current = id ? (await db.user.findUnique({ where: { id }, select: { name: true } }))?.name : undefined;
            refuseRename(update, current);
          },
        },
      },
    },
    plugins: [...(oidc ? [genericOAuth({ config: [oidc] })] : []), nextCookies()],
  });
}

type Auth = ReturnType<typeof createAuth>;
const globalForAuth = globalThis as unknown as { longhaulAuth?: Auth };

/** The web process's better-auth instance (created on first use, kept across hot reloads). */
export function auth(): Auth {
  globalForAuth.longhaulAuth ??= createAuth();
  return globalForAuth.longhaulAuth;
}

import { z } from "zod";
import { idField, inputObject, textField } from "../domain/input-fields.ts";
import { env, type Env } from "../env.ts";
import type { PrismaClient } from "../db/generated/client.ts";
import { AppError } from "../errors.ts";
import { tokenListSelect } from "./api-tokens.ts";
import { auth, oidcConfig, type AuthConfig } from "./auth.ts";
import { normaliseRoles, ROLES, type Role } from "../../lib/contracts/roles.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../lib/contracts/limits.ts";
import { escapeLike } from "../db/task-queries.ts";

export const roleListSchema = z.array(z.enum(ROLES, { message: `roles: each one of ${ROLES.join(", ")}` })).max(ROLES.length, `roles: at most ${ROLES.length}`);

/** Users as the admin page lists them (oldest first), with their roles, how they sign in and when they were deactivated (null = active). */
export async function listUsers({ prisma }: { prisma: PrismaClient }) {
  const users = await prisma.user.findMany({
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true, email: true, roles: true, createdAt: true, deactivatedAt: true, accounts: { select: { providerId: true } } },
  });
  return users.map(({ accounts, roles, ...u }) => ({
    ...u,
    roles: normaliseRoles(roles),
    signIn: [...new Set(accounts.map((a) => (a.providerId === "credential" ? "password" : a.providerId)))],
  }));
}

/**
 * Sets user `userId`'s roles to `roles` (replacing them). Refuses to leave Longhaul without an
 * active admin: taking `admin` from the last active (not deactivated) admin is a CONFLICT. Returns the user with the roles now held.
 * @throws AppError NOT_FOUND (no such user), CONFLICT (the last active admin).
 */
export async function setUserRoles({ prisma, userId, roles }: { prisma: PrismaClient; userId: string; roles: readonly Role[] }) {
  const clean = normaliseRoles(roles);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('longhaul:first-admin'))`;
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, roles: true, deactivatedAt: true } });
    if (!user) throw new AppError("NOT_FOUND", `user ${userId} not found`);
    if (user.roles.includes("admin") && !user.deactivatedAt && !clean.includes("admin")) {
      const admins = await tx.user.count({ where: { roles: { has: "admin" }, deactivatedAt: null } });
      if (admins <= 1) throw new AppError("CONFLICT", "roles: this is the last active admin; give another user admin first");
    }
    return tx.user.update({ where: { id: userId }, data: { roles: clean }, select: { id: true, name: true, email: true, roles: true } });
  });
}

export const createUserInputSchema = inputObject({
  email: z.email("email: a valid email address").max(200, "email: at most 200 characters"),
  name: textField("name", 100).refine((v) => v.length > 0, "name: required"),
  password: z
    .string("password: must be text")
    .min(PASSWORD_MIN_LENGTH, `password: at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `password: at most ${PASSWORD_MAX_LENGTH} characters`),
  roles: roleListSchema.default([]),
});

/**
 * An admin creates an account with a password and roles (for a closed sign-up, and for tests).
 * Goes through better-auth's own adapter and password hashing (scrypt), not a raw insert.
 * @throws AppError CONFLICT when the email is taken.
 */
export async function createUserWithPassword({ prisma, input }: { prisma: PrismaClient; input: z.output<typeof createUserInputSchema> }) {
  const email = input.email.toLowerCase();
  if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) throw new AppError("CONFLICT", `email: ${email} already has an account`);
  const ctx = await auth().$context;
  const user = await ctx.internalAdapter.createUser({ email, name: input.name, emailVerified: false }, { method: "admin" });
  await ctx.internalAdapter.linkAccount({ providerId: "credential", accountId: user.id, userId: user.id, password: await ctx.password.hash(input.password) });
  const roles = normaliseRoles([...(await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).roles, ...input.roles]);
  return prisma.user.update({ where: { id: user.id }, data: { roles }, select: { id: true, name: true, email: true, roles: true } });
}

/** A new password (the same limits as sign-up, lib/contracts/limits.ts). */
const passwordField = z
  .string("password: must be text")
  .min(PASSWORD_MIN_LENGTH, `password: at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `password: at most ${PASSWORD_MAX_LENGTH} characters`);

export const setPasswordInputSchema = inputObject({ userId: idField("userId"), password: passwordField });

/**
 * An admin sets user `userId`'s password (a reset without email: there is no mail server in the
 * embedded default). Hashed by better-auth (scrypt) into the user's credential account, created when
 * the user signed in only through OIDC so far — what better-auth's admin plugin `setUserPassword`
 * does. Every session of the user is ended and every API token of theirs revoked (a reset is what
 * an admin does when the account may be in the wrong hands: whoever held the old password could
 * have minted a token). The
 * audit log records who did it for whom, never the password (server/auth/audit.ts redaction).
 * Returns `{userId, sessionsEnded, tokensRevoked}`. @throws AppError NOT_FOUND for an unknown user.
 */
export async function setUserPassword({ prisma, input }: { prisma: PrismaClient; input: z.output<typeof setPasswordInputSchema> }) {
  const user = await prisma.user.findUnique({ where: { id: input.userId }, select: { id: true } });
  if (!user) throw new AppError("NOT_FOUND", `user ${input.userId} not found`);
  const ctx = await auth().$context;
  const hash = await ctx.password.hash(input.password);
  if (await ctx.internalAdapter.findCredentialAccount(user.id)) await ctx.internalAdapter.updatePassword(user.id, hash);
  else await ctx.internalAdapter.linkAccount({ providerId: "credential", accountId: user.id, userId: user.id, password: hash });
  const sessionsEnded = await prisma.session.count({ where: { userId: user.id } });
  await ctx.internalAdapter.deleteUserSessions(user.id);
  const { count: tokensRevoked } = await prisma.apiToken.updateMany({ where: { userId: user.id, revokedAt: null }, data: { revokedAt: new Date() } });
  return { userId: user.id, sessionsEnded, tokensRevoked };
}

export const auditListInputSchema = inputObject({
  actor: textField("actor", 200).optional(),
  action: textField("action", 100).optional(),
  taskId: idField("taskId").optional(),
  /** Exclusive: the page starts after this event id (the previous page's nextCursor). */
  cursor: idField("cursor").nullish(),
  limit: z.number("limit: a whole number").int("limit: a whole number").min(1, "limit: at least 1").max(500, "limit: at most 500").default(100),
});

/**
 * The audit log, newest first, filtered by actor and action (each a substring, case-insensitive,
 * taken literally — "token" finds account.createToken, "_" only an underscore) and task id
 * (exact). Returns `{events, nextCursor}`.
 */
export async function listAuditEvents({ prisma, input }: { prisma: PrismaClient; input: z.output<typeof auditListInputSchema> }) {
  const events = await prisma.auditEvent.findMany({
    where: {
      ...(input.actor ? { actor: { contains: escapeLike(input.actor), mode: "insensitive" as const } } : {}),
      ...(input.action ? { action: { contains: escapeLike(input.action), mode: "insensitive" as const } } : {}),
      ...(input.taskId ? { taskId: input.taskId } : {}),
      ...(input.cursor ? { id: { lt: input.cursor } } : {}),
    },
    orderBy: { id: "desc" },
    take: input.limit + 1,
  });
  const page = events.slice(0, input.limit);
  return { events: page, nextCursor: events.length > input.limit ? (page.at(-1)?.id ?? null) : null };
}

/** One user's API tokens, newest first (never the secret or its hash); none for the local CLI token. */
export async function listOwnTokens({ prisma, userId }: { prisma: PrismaClient; userId: string | null }) {
  if (!userId) return [];
  return prisma.apiToken.findMany({ where: { userId }, orderBy: { createdAt: "desc" }, select: tokenListSelect });
}

/** Every API token with its owner's name (admin page), newest first, at most 500. */
export async function listAllTokens({ prisma }: { prisma: PrismaClient }) {
  return prisma.apiToken.findMany({ orderBy: { createdAt: "desc" }, take: 500, select: { ...tokenListSelect, user: { select: { name: true } } } });
}

/**
 * What the sign-in page offers: email + password (unless LONGHAUL_PASSWORD_SIGNIN=off), sign-up
 * (closed by LONGHAUL_SIGNUP=closed once a user exists), the OIDC provider's name when configured,
 * and whether no user exists yet (the first sign-up becomes admin). Never any secret.
 */
export async function signInOptions({
  prisma,
  source = env(),
}: {
  prisma: PrismaClient;
  /** Configuration (default {@link env}); tests pass `parseEnv({...})`. */
  source?: AuthConfig & Partial<Pick<Env, "LONGHAUL_PASSWORD_SIGNIN" | "LONGHAUL_SIGNUP">>;
}) {
  const users = await prisma.user.count();
  const oidc = oidcConfig(source);
  const password = source.LONGHAUL_PASSWORD_SIGNIN !== "off";
  return {
    password,
    signUp: password && (users === 0 || source.LONGHAUL_SIGNUP !== "closed"),
    oidc: oidc ? { providerId: oidc.providerId, name: oidc.name } : null,
    firstUser: users === 0,
  };
}

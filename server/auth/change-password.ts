import { ulid } from "ulid";
import { z } from "zod";
import { inputObject } from "../domain/input-fields.ts";
import type { PrismaClient } from "../db/generated/client.ts";
import { AppError } from "../errors.ts";
import { auth } from "./auth.ts";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../lib/contracts/limits.ts";

export const changePasswordInputSchema = inputObject({
  currentPassword: z
    .string("currentPassword: must be text")
    .min(1, "currentPassword: required")
    .max(PASSWORD_MAX_LENGTH, `currentPassword: at most ${PASSWORD_MAX_LENGTH} characters`),
  newPassword: z
    .string("newPassword: must be text")
    .min(PASSWORD_MIN_LENGTH, `newPassword: at least ${PASSWORD_MIN_LENGTH} characters`)
    .max(PASSWORD_MAX_LENGTH, `newPassword: at most ${PASSWORD_MAX_LENGTH} characters`),
});

/** Input of {@link changeOwnPassword}. */
export type ChangePasswordInput = z.output<typeof changePasswordInputSchema>;

/** Wrong current passwords a user may give in {@link FAILURE_WINDOW_MS} before further tries are refused unchecked (better-auth limits sign-in to 30 a minute; guessing here is as sensitive). */
export const MAX_FAILED_CHANGES = 5;
const FAILURE_WINDOW_MS = 60_000;
/**
 * Tries at the current password are rows of better-auth's `auth_verification` table (its store for
 * short-lived values; written with Prisma, as better-auth's adapter has no "count by identifier"),
 * identifier `password-change-failure:<userId>`, expiring a window after the try: the limit holds
 * across web-app processes and restarts, as a per-process counter would not.
 */
const failureIdentifier = (userId: string) => `password-change-failure:${userId}`;

/**
 * Reserves a try before the password is checked (so concurrent guesses cannot all pass the count):
 * inserts this try's row, then counts the unexpired rows including it. Each try's count sees every
 * try committed before it, so at most {@link MAX_FAILED_CHANGES} of any number of concurrent tries
 * see a count within the limit. Returns the row's id, or the oldest try's time when over the
 * limit (the reservation is withdrawn then: a refused try is not checked and does not count).
 */
async function reserveTry(prisma: PrismaClient, userId: string, now: Date): Promise<{ id: string } | { refusedUntil: Date }> {
  const identifier = failureIdentifier(userId);
  await prisma.verification.deleteMany({ where: { identifier, expiresAt: { lte: now } } });
  const id = ulid();
  await prisma.verification.create({ data: { id, identifier, value: "try", createdAt: now, expiresAt: new Date(now.getTime() + FAILURE_WINDOW_MS) } });
  const live = await prisma.verification.findMany({
    where: { identifier, expiresAt: { gt: now } },
    orderBy: { expiresAt: "asc" },
    select: { expiresAt: true },
  });
  if (live.length <= MAX_FAILED_CHANGES) return { id };
  await prisma.verification.deleteMany({ where: { id } });
  return { refusedUntil: live[0]!.expiresAt };
}

/**
 * A signed-in user changes their own password: `currentPassword` must be the one on their
 * credential account (checked with better-auth's scrypt verify), then `newPassword` is hashed in its
 * place and every other session of theirs ends — the session `keepSessionId` that asked stays
 * signed in. API tokens are kept (the user chose to change it; an admin's reset, which may follow a
 * stolen password, revokes them). The audit log records the change without either password
 * (server/auth/audit.ts redaction). Returns `{ sessionsEnded }`.
 * @throws AppError BAD_INPUT "currentPassword: incorrect" or when the new one equals the current;
 * PRECONDITION_FAILED when the user has no password (signs in through OIDC only);
 * TOO_MANY_REQUESTS after {@link MAX_FAILED_CHANGES} wrong current passwords in a minute, counted in the database for every process and reserved before the check, so concurrent guesses are counted too (not checked then).
 */
export async function changeOwnPassword({
  prisma,
  userId,
  keepSessionId,
  input,
}: {
  prisma: PrismaClient;
  userId: string;
  keepSessionId: string;
  input: ChangePasswordInput;
}): Promise<{ sessionsEnded: number }> {
  const now = new Date();
  const reserved = await reserveTry(prisma, userId, now);
  if ("refusedUntil" in reserved) {
    const waitS = Math.max(1, Math.ceil((reserved.refusedUntil.getTime() - now.getTime()) / 1000));
    throw new AppError("TOO_MANY_REQUESTS", `currentPassword: ${MAX_FAILED_CHANGES} wrong tries in a minute; try again in ${waitS} s`);
  }
  const ctx = await auth().$context;
  const account = await ctx.internalAdapter.findCredentialAccount(userId);
  if (!account?.password) {
    await prisma.verification.deleteMany({ where: { id: reserved.id } });
    throw new AppError("PRECONDITION_FAILED", "currentPassword: this account signs in through single sign-on and has no password to change");
  }
  // A wrong password keeps its reserved row (it counts for the window); the right one clears them all.
  if (!(await ctx.password.verify({ hash: account.password, password: input.currentPassword })))
    throw new AppError("BAD_INPUT", "currentPassword: incorrect (the password you sign in with now)");
  await prisma.verification.deleteMany({ where: { identifier: failureIdentifier(userId) } });
  if (input.newPassword === input.currentPassword) throw new AppError("BAD_INPUT", "newPassword: must differ from the current password");
  await ctx.internalAdapter.updatePassword(userId, await ctx.password.hash(input.newPassword));
  const { count: sessionsEnded } = await prisma.session.deleteMany({ where: { userId, id: { not: keepSessionId } } });
  return { sessionsEnded };
}

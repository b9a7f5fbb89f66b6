import { z } from "zod";
import { inputObject } from "../domain/input-fields.ts";
import type { PrismaClient } from "../db/generated/client.ts";
import { AppError } from "../errors.ts";
import { auth } from "./auth.ts";

/** Shortest and longest password (the same limits as sign-up, server/auth/auth.ts). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

export const changePasswordInputSchema = inputObject({
  currentPassword: z
    .string("currentPassword: must be text")
    .min(1, "currentPassword: required")
    .max(PASSWORD_MAX, `currentPassword: at most ${PASSWORD_MAX} characters`),
  newPassword: z
    .string("newPassword: must be text")
    .min(PASSWORD_MIN, `newPassword: at least ${PASSWORD_MIN} characters`)
    .max(PASSWORD_MAX, `newPassword: at most ${PASSWORD_MAX} characters`),
});

/** Input of {@link changeOwnPassword}. */
export type ChangePasswordInput = z.output<typeof changePasswordInputSchema>;

/** Wrong current passwords a user may give in {@link FAILURE_WINDOW_MS} before further tries are refused unchecked (better-auth limits sign-in to 30 a minute; guessing here is as sensitive). */
export const MAX_FAILED_CHANGES = 5;
const FAILURE_WINDOW_MS = 60_000;
/** userId → times (ms) of recent wrong current passwords; per web-app process (one under `npm start`). */
const failures = new Map<string, number[]>();

function recentFailures(userId: string, now: number): number[] {
  const kept = (failures.get(userId) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
  if (kept.length) failures.set(userId, kept);
  else failures.delete(userId);
  return kept;
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
 * TOO_MANY_REQUESTS after {@link MAX_FAILED_CHANGES} wrong current passwords in a minute (not checked then).
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
  const now = Date.now();
  const recent = recentFailures(userId, now);
  if (recent.length >= MAX_FAILED_CHANGES) {
    const waitS = Math.ceil((FAILURE_WINDOW_MS - (now - recent[0]!)) / 1000);
    throw new AppError("TOO_MANY_REQUESTS", `currentPassword: ${MAX_FAILED_CHANGES} wrong tries in a minute; try again in ${waitS} s`);
  }
  const ctx = await auth().$context;
  const account = await ctx.internalAdapter.findCredentialAccount(userId);
  if (!account?.password)
    throw new AppError("PRECONDITION_FAILED", "currentPassword: this account signs in through single sign-on and has no password to change");
  if (!(await ctx.password.verify({ hash: account.password, password: input.currentPassword }))) {
    failures.set(userId, [...recent, now]);
    throw new AppError("BAD_INPUT", "currentPassword: incorrect (the password you sign in with now)");
  }
  failures.delete(userId);
  if (input.newPassword === input.currentPassword) throw new AppError("BAD_INPUT", "newPassword: must differ from the current password");
  await ctx.internalAdapter.updatePassword(userId, await ctx.password.hash(input.newPassword));
  const { count: sessionsEnded } = await prisma.session.deleteMany({ where: { userId, id: { not: keepSessionId } } });
  return { sessionsEnded };
}

import type { PrismaClient } from "../db/generated/client.ts";
import { AppError } from "../errors.ts";

/** What a deactivated user is told when they try to sign in, or a session or token of theirs is used. */
export const DEACTIVATED_MESSAGE = "this account is deactivated: ask an admin to reactivate it";

/**
 * Why deactivating `target` must be refused, or null (pure). An admin cannot deactivate themselves
 * (they would lock themselves out mid-action), and Longhaul must keep one active admin: deactivating
 * the last active holder of `admin` is refused (`activeAdmins` counts the active admins, the target
 * included when it is one).
 */
export function deactivationRefusal({
  target,
  actorUserId,
  activeAdmins,
}: {
  target: { id: string; roles: readonly string[]; deactivatedAt: Date | null };
  actorUserId: string | null;
  activeAdmins: number;
}): string | null {
  if (actorUserId !== null && target.id === actorUserId) return "userId: you cannot deactivate your own account; ask another admin";
  if (!target.deactivatedAt && target.roles.includes("admin") && activeAdmins <= 1)
    return "userId: this is the last active admin; give another user admin first";
  return null;
}

/** A user as the deactivate / reactivate procedures answer it. */
export interface DeactivationResult {
  id: string;
  name: string;
  email: string;
  deactivatedAt: Date | null;
  /** Sessions ended by this call (0 for a reactivation or a user already deactivated). */
  sessionsEnded: number;
}

/**
 * Deactivates (`deactivate: true`) or reactivates user `userId`. A deactivated user cannot sign in
 * (server/auth/auth.ts refuses the session), their sessions are deleted at once, their API tokens
 * are refused while they stay deactivated (not revoked: a reactivation gives them back), and they
 * receive no escalation email (server/db/escalation-notify.ts). Under the same advisory lock as the
 * role changes and the first admin's grant, so two admins cannot deactivate each other's last
 * colleague at once. Idempotent: deactivating a deactivated user changes nothing.
 * `actorUserId` is the admin acting (null for the local CLI token).
 * @throws AppError NOT_FOUND (no such user), CONFLICT (oneself, or the last active admin — see {@link deactivationRefusal}).
 */
export async function setUserDeactivated({
  prisma,
  userId,
  deactivate,
  actorUserId,
  now = new Date(),
}: {
  prisma: PrismaClient;
  userId: string;
  deactivate: boolean;
  actorUserId: string | null;
  now?: Date;
}): Promise<DeactivationResult> {
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('longhaul:first-admin'))`;
    const user = await tx.user.findUnique({ where: { id: userId }, select: { id: true, name: true, email: true, roles: true, deactivatedAt: true } });
    if (!user) throw new AppError("NOT_FOUND", `userId: user ${userId} not found`);
    const select = { id: true, name: true, email: true, deactivatedAt: true } as const;
    if (!deactivate) {
      const updated = user.deactivatedAt ? await tx.user.update({ where: { id: user.id }, data: { deactivatedAt: null }, select }) : user;
      return { id: updated.id, name: updated.name, email: updated.email, deactivatedAt: null, sessionsEnded: 0 };
    }
    const activeAdmins = await tx.user.count({ where: { roles: { has: "admin" }, deactivatedAt: null } });
    const refusal = deactivationRefusal({ target: user, actorUserId, activeAdmins });
    if (refusal) throw new AppError("CONFLICT", refusal);
    if (user.deactivatedAt) return { id: user.id, name: user.name, email: user.email, deactivatedAt: user.deactivatedAt, sessionsEnded: 0 };
    const updated = await tx.user.update({ where: { id: user.id }, data: { deactivatedAt: now }, select });
    const { count: sessionsEnded } = await tx.session.deleteMany({ where: { userId: user.id } });
    return { ...updated, sessionsEnded };
  });
}

/** True when user `userId` exists and is deactivated (sign-in and session checks). */
export async function isDeactivated({ prisma, userId }: { prisma: PrismaClient; userId: string }): Promise<boolean> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { deactivatedAt: true } });
  return !!user?.deactivatedAt;
}

import { createHash, randomBytes } from "node:crypto";
import { ulid } from "ulid";
import type { PrismaClient } from "../db/generated/client.ts";
import { AppError } from "../errors.ts";
import { normaliseRoles, type Role } from "../../lib/contracts/roles.ts";

/** Every token starts with this, so secret scanners and people recognise it. */
export const TOKEN_PREFIX = "lh_";
/** Longest lifetime a token may be given: one year (days). */
export const TOKEN_MAX_DAYS = 366;
/** Actor name of the local CLI token `npm start` keeps in DATA_DIR (it has no user). */
export const LOCAL_CLI_ACTOR = "local-cli";
export const LOCAL_CLI_TOKEN_NAME = "local CLI (npm start)";

/** SHA-256 of a token, hex: the only form stored (a database leak does not leak usable tokens). */
export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** A new random token: `lh_` + 43 base64url characters (256 bits). */
export function newTokenSecret(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/** The principal an API token acts as (see server/auth/principal.ts). */
export interface TokenPrincipal {
  userId: string | null;
  name: string;
  email: string | null;
  roles: Role[];
  via: "token";
  tokenId: string;
}

/**
 * Creates a token for `userId` (null = the local CLI token) acting with `roles`, valid `days` days
 * (1–{@link TOKEN_MAX_DAYS}). Returns the secret once — only its hash is stored.
 * @throws AppError BAD_INPUT when `roles` is empty or `days` is out of range.
 */
export async function createApiToken({
  prisma,
  userId,
  name,
  roles,
  days,
  now = new Date(),
}: {
  prisma: PrismaClient;
  userId: string | null;
  name: string;
  roles: readonly string[];
  days: number;
  now?: Date;
}): Promise<{ id: string; token: string; prefix: string; name: string; roles: Role[]; expiresAt: Date }> {
  const clean = normaliseRoles(roles);
  if (clean.length === 0) throw new AppError("BAD_INPUT", "roles: give at least one of operator, handler, manager, admin");
  if (!Number.isInteger(days) || days < 1 || days > TOKEN_MAX_DAYS)
    throw new AppError("BAD_INPUT", `expiresInDays: a whole number from 1 to ${TOKEN_MAX_DAYS}, got ${days}`);
  const token = newTokenSecret();
  const prefix = token.slice(0, TOKEN_PREFIX.length + 6);
  const expiresAt = new Date(now.getTime() + days * 86_400_000);
  const row = await prisma.apiToken.create({
    data: { id: `tok_${ulid().toLowerCase()}`, name, prefix, tokenHash: hashToken(token), roles: clean, userId, expiresAt },
  });
  return { id: row.id, token, prefix, name, roles: clean, expiresAt };
}

/**
 * The principal of a presented token, or why it is refused: unknown, revoked or expired tokens all
 * answer the same "invalid" reason (no oracle), except expiry, which is worth telling the owner.
 * A token acts with its own roles, narrowed to its owner's current roles (a demoted user's tokens
 * lose what the user lost). A deactivated owner's tokens are refused, saying so, while the owner
 * stays deactivated. Records `lastUsedAt` at most once a minute.
 */
export async function verifyApiToken({
  prisma,
  token,
  now = new Date(),
}: {
  prisma: PrismaClient;
  token: string;
  now?: Date;
}): Promise<{ principal: TokenPrincipal } | { problem: string }> {
  const invalid = { problem: "the API token is invalid or revoked (create one: npm run cli -- login)" };
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return invalid;
  const row = await prisma.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { select: { id: true, name: true, email: true, roles: true, deactivatedAt: true } } },
  });
  if (!row || row.revokedAt) return invalid;
  if (row.expiresAt <= now) return { problem: `the API token expired at ${row.expiresAt.toISOString()} (create a new one: npm run cli -- login)` };
  if (row.userId && !row.user) return invalid;
  if (row.user?.deactivatedAt) return { problem: `the API token's account is deactivated (ask an admin to reactivate it)` };
  const roles = normaliseRoles(row.user ? row.roles.filter((r) => row.user!.roles.includes(r)) : row.roles);
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await prisma.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } }).catch(() => undefined);
  }
  return {
    principal: { userId: row.user?.id ?? null, name: row.user?.name ?? LOCAL_CLI_ACTOR, email: row.user?.email ?? null, roles, via: "token", tokenId: row.id },
  };
}

/** Token rows as a list shows them (never the hash). */
export const tokenListSelect = {
  id: true,
  name: true,
  prefix: true,
  roles: true,
  userId: true,
  expiresAt: true,
  revokedAt: true,
  lastUsedAt: true,
  createdAt: true,
} as const;

/**
 * Revokes token `tokenId`; only its owner may, or an admin (`asAdmin`). Revoking a revoked token is
 * a no-op that returns when it was revoked.
 * @throws AppError NOT_FOUND when there is no such token (or it is someone else's and not `asAdmin`).
 */
export async function revokeApiToken({
  prisma,
  tokenId,
  userId,
  asAdmin,
}: {
  prisma: PrismaClient;
  tokenId: string;
  userId: string | null;
  asAdmin: boolean;
}): Promise<{ id: string; revokedAt: Date }> {
  const row = await prisma.apiToken.findUnique({ where: { id: tokenId } });
  if (!row || (!asAdmin && row.userId !== userId)) throw new AppError("NOT_FOUND", `token ${tokenId} not found`);
  if (row.revokedAt) return { id: row.id, revokedAt: row.revokedAt };
  const updated = await prisma.apiToken.update({ where: { id: row.id }, data: { revokedAt: new Date() } });
  return { id: updated.id, revokedAt: updated.revokedAt! };
}

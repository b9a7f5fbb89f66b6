/**
 * Local identity for `npm start` (embedded default): the better-auth secret and the local CLI's
 * admin token, both kept in DATA_DIR readable by this user only (mode 0600), like the Inngest keys.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createApiToken, hashToken, LOCAL_CLI_TOKEN_NAME, TOKEN_MAX_DAYS } from "../../server/auth/api-tokens.ts";
import { ROLES } from "../../lib/contracts/roles.ts";
import type { PrismaClient } from "../../server/db/generated/client.ts";

/** File of the local CLI token inside DATA_DIR. */
export const CLI_TOKEN_FILE = "cli-token";

/** BETTER_AUTH_SECRET from env, else `<dataDir>/auth-secret` (generated once: 32 random bytes, hex). */
export function authSecret(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = join(dataDir, "auth-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  chmodSync(file, 0o600);
  return readFileSync(file, "utf8").trim();
}

/**
 * Makes sure `<dataDir>/cli-token` holds a live admin token (all roles, no user; actor `local-cli`)
 * whose hash is in this database: reuses the file's token when the database knows it (not revoked,
 * more than a day left), else creates a new one (a year) and rewrites the file (0600).
 */
export async function ensureLocalCliToken(prisma: PrismaClient, dataDir: string): Promise<string> {
  const file = join(dataDir, CLI_TOKEN_FILE);
  if (existsSync(file)) {
    const token = readFileSync(file, "utf8").trim();
    const row = await prisma.apiToken.findUnique({ where: { tokenHash: hashToken(token) } });
    if (row && !row.revokedAt && row.expiresAt.getTime() > Date.now() + 86_400_000) {
      chmodSync(file, 0o600);
      return file;
    }
  }
  const created = await createApiToken({ prisma, userId: null, name: LOCAL_CLI_TOKEN_NAME, roles: ROLES, days: TOKEN_MAX_DAYS });
  writeFileSync(file, `${created.token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/**
 * The token the CLI sends: LONGHAUL_TOKEN, else — only when the app is on this machine (loopback
 * URL) — the local CLI token `npm start` wrote into DATA_DIR (default `.data` of this checkout).
 */
export function cliToken(baseUrl: string, source: Record<string, string | undefined> = process.env): string | undefined {
  if (source.LONGHAUL_TOKEN) return source.LONGHAUL_TOKEN.trim();
  const host = new URL(baseUrl).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]") return undefined;
  const file = join(resolve(import.meta.dirname, "../..", source.DATA_DIR || ".data"), CLI_TOKEN_FILE);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

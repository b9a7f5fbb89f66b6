import { AppError } from "../errors.ts";
import { describeCodeSource, SEED_SOURCE } from "../../lib/contracts/code-managed.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import { normaliseMcpServerSpec, setMcpToolOverride, upsertMcpServer } from "./mcp-server-repository.ts";

/**
 * Profiles and MCP servers managed as code (CodeManaged rows): what `profiles apply` writes from a
 * file, and what Longhaul's seed writes at every start. The browser refuses to edit them while they
 * are — an edit there would differ from the file, and the next apply (or start) would silently undo
 * it — until an admin detaches one on purpose; applying the file again manages it as code again.
 */

/** CodeManaged.kind: what a row manages (also a CHECK constraint on the column, migration status_checks). */
export const CODE_MANAGED_KINDS = ["profile", "mcpServer"] as const;
export type CodeManagedKind = (typeof CODE_MANAGED_KINDS)[number];

/** Where a code-managed entry came from, as the admin page and the refusals say it. */
export interface CodeSource {
  /** The file as `profiles apply` named it, or "seed" (Longhaul's own seed, applied at every start). */
  source: string;
  appliedBy: string;
  appliedAt: Date;
}

export { API_SOURCE, SEED_SOURCE } from "../../lib/contracts/code-managed.ts";

type Db = PrismaClient | Prisma.TransactionClient;

/** Marks `names` of `kind` as managed from `source` (applied now by `actor`); a second apply updates where and when. */
export async function markCodeManaged(
  db: Db,
  { kind, names, source, actor }: { kind: CodeManagedKind; names: readonly string[]; source: string; actor: string },
): Promise<void> {
  const appliedAt = new Date();
  for (const name of names) {
    await db.codeManaged.upsert({
      where: { kind_name: { kind, name } },
      create: { kind, name, source, appliedBy: actor, appliedAt },
      update: { source, appliedBy: actor, appliedAt },
    });
  }
}

/** The code-managed entries of `kind` by name (all of them, or those in `names`). */
export async function codeSources(db: Db, kind: CodeManagedKind, names?: readonly string[]): Promise<Map<string, CodeSource>> {
  const rows = await db.codeManaged.findMany({ where: { kind, ...(names ? { name: { in: [...names] } } : {}) } });
  return new Map(rows.map((r) => [r.name, { source: r.source, appliedBy: r.appliedBy, appliedAt: r.appliedAt }]));
}

/**
 * Refuses a browser or API edit of a code-managed entry, saying where it is managed and the two ways
 * on. @throws AppError CONFLICT: `profile "team" is managed as code (applied from the file
 * ops/profiles.yaml by ada at …): change the file and apply it, or detach it from the file first`.
 */
export async function refuseIfCodeManaged(db: Db, kind: CodeManagedKind, name: string): Promise<void> {
  const row = await db.codeManaged.findUnique({ where: { kind_name: { kind, name } } });
  if (!row) return;
  const what = kind === "profile" ? `profile "${name}"` : `MCP server "${name}"`;
  const how =
    row.source === SEED_SOURCE
      ? "Longhaul's seed writes it again at every start; copy it to make one of your own, or detach it first"
      : "change the file and apply it (npm run cli -- profiles apply), or detach it from the file first";
  throw new AppError(
    "CONFLICT",
    `${what} is managed as code (from ${describeCodeSource(row.source)}, applied by ${row.appliedBy} at ${row.appliedAt.toISOString()}): an edit here would differ from it; ${how}`,
  );
}

/**
 * Detaches `name` of `kind` from its file: the browser may edit it from now on (and those edits
 * differ from the file until it is applied again, which manages it as code again). Idempotent:
 * `detached: false` when it was not managed as code. Returns where it was managed from.
 */
export async function detachFromCode(db: Db, kind: CodeManagedKind, name: string): Promise<{ detached: boolean; source: string | null }> {
  const row = await db.codeManaged.findUnique({ where: { kind_name: { kind, name } } });
  if (!row) return { detached: false, source: null };
  await db.codeManaged.deleteMany({ where: { kind, name } });
  return { detached: true, source: row.source };
}

/**
 * Detaches MCP server `name` from the file (or seed) it is managed from, as detachProfileFromCode
 * does for a profile: the browser and `mcpServer.upsert` may change it from now on. Idempotent
 * (`detached: false` when it was not managed as code). @throws AppError NOT_FOUND.
 */
export async function detachMcpServerFromCode({ prisma, name }: { prisma: PrismaClient; name: string }) {
  if (!(await prisma.mcpServer.findUnique({ where: { name }, select: { id: true } }))) throw new AppError("NOT_FOUND", `MCP server "${name}" not found`);
  return { name, ...(await detachFromCode(prisma, "mcpServer", name)) };
}

/**
 * An MCP server registered or changed from the browser or the API (`mcpServer.upsert`): refused
 * while it is managed as code, else upsertMcpServer. @throws AppError CONFLICT, BAD_INPUT.
 */
export async function upsertMcpServerByHand({ prisma, spec, actor }: { prisma: PrismaClient; spec: unknown; actor: string }) {
  await refuseIfCodeManaged(prisma, "mcpServer", normaliseMcpServerSpec(spec).name);
  return upsertMcpServer({ prisma, spec, actor });
}

/** A tool class override from the browser or the API: refused while the server is managed as code (the file's `tools:` holds them), else setMcpToolOverride. */
export async function setMcpToolOverrideByHand(args: Parameters<typeof setMcpToolOverride>[0]) {
  await refuseIfCodeManaged(args.prisma, "mcpServer", args.name);
  return setMcpToolOverride(args);
}

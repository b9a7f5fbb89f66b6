import canonicalize from "canonicalize";
import { mcpServerSpecSchema, type McpServerSpec, type McpToolOverride } from "../../lib/contracts/mcp.ts";
import { AppError } from "../errors.ts";
import type { Prisma, PrismaClient } from "./client.ts";
import type { DiscoveredTool } from "../domain/mcp-tool-snapshot.ts";
import { mcpServerDiscoveredToolsJson, mcpServerServerInfoJson } from "./json-columns.ts";

/**
 * The registered MCP servers (model McpServer, table `mcp_server`). A server's `spec` is
 * stored as lib/contracts/mcp.ts `mcpServerSpecSchema` parses it (defaults filled in), so two
 * registrations that mean the same thing compare equal; `version` goes up only when the spec
 * changes. Archiving hides a server from new runs and keeps it readable for runs that used it.
 */

/** One registered server as the rest of Longhaul reads it: the spec parsed again with zod (JSON read back is never trusted to have its shape). */
export interface McpServerRecord {
  id: string;
  name: string;
  spec: McpServerSpec;
  version: number;
  archivedAt: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  health: McpServerHealth;
}

/** What the last start or call of a server left behind (written by server/mcp/runtime.ts). */
export interface McpServerHealth {
  lastStartedAt: Date | null;
  /** Pid of the stdio process the last start made (it may have stopped since); null for http. */
  lastPid: number | null;
  /** `initialize`'s serverInfo: {name, version}. */
  serverInfo: unknown;
  /** The last `tools/list` as a list of discovered tools (server/domain/mcp-tool-snapshot.ts DiscoveredTool[]). */
  discoveredTools: unknown;
  discoveredAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
  /** Starts that followed an unexpected exit of the server's process. */
  restarts: number;
  /** The last unexpected exit: when, and its exit code or signal (both null before any). */
  lastExitAt: Date | null;
  lastExitCode: number | null;
  lastExitSignal: string | null;
}

const recordSelect = {
  id: true,
  name: true,
  spec: true,
  version: true,
  archivedAt: true,
  createdBy: true,
  createdAt: true,
  updatedAt: true,
  lastStartedAt: true,
  lastPid: true,
  serverInfo: true,
  discoveredTools: true,
  discoveredAt: true,
  lastError: true,
  lastErrorAt: true,
  restarts: true,
  lastExitAt: true,
  lastExitCode: true,
  lastExitSignal: true,
} as const;

type Row = Prisma.McpServerGetPayload<{ select: typeof recordSelect }>;

function toRecord(row: Row): McpServerRecord {
  const parsed = mcpServerSpecSchema.safeParse(row.spec);
  if (!parsed.success)
    throw new AppError("INTERNAL", `mcp_server "${row.name}": stored spec no longer validates (${parsed.error.issues[0]?.message ?? "invalid"})`);
  const {
    lastStartedAt,
    lastPid,
    serverInfo,
    discoveredTools,
    discoveredAt,
    lastError,
    lastErrorAt,
    restarts,
    lastExitAt,
    lastExitCode,
    lastExitSignal,
    spec: _spec,
    ...rest
  } = row;
  return {
    ...rest,
    spec: parsed.data,
    health: { lastStartedAt, lastPid, serverInfo, discoveredTools, discoveredAt, lastError, lastErrorAt, restarts, lastExitAt, lastExitCode, lastExitSignal },
  };
}

/** The spec as stored (`input`: an McpServerSpecInput, untrusted): parsed with defaults, in canonical JSON order. @throws AppError BAD_REQUEST naming the field. */
export function normaliseMcpServerSpec(input: unknown): McpServerSpec {
  const parsed = mcpServerSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // The field as the API names it (`spec.transport.command`), so a message says where it is.
    const field = issue?.path.length ? `spec.${issue.path.join(".")}` : "spec";
    throw new AppError("BAD_INPUT", `${field}: ${issue?.message ?? "invalid"}`);
  }
  return JSON.parse(canonicalize(parsed.data) ?? "{}") as McpServerSpec;
}

/** All servers by name; archived ones only with `includeArchived`. */
export async function listMcpServers({ prisma, includeArchived = false }: { prisma: PrismaClient; includeArchived?: boolean }): Promise<McpServerRecord[]> {
  const rows = await prisma.mcpServer.findMany({ where: includeArchived ? {} : { archivedAt: null }, orderBy: { name: "asc" }, select: recordSelect });
  return rows.map(toRecord);
}

/**
 * The servers called `names` (archived included: a resumed run may use one), in the order asked.
 * With `orThrow`, a missing name is an AppError BAD_REQUEST listing the unknown names.
 */
export async function getMcpServersByNames({
  prisma,
  names,
  orThrow = false,
}: {
  prisma: PrismaClient;
  names: readonly string[];
  orThrow?: boolean;
}): Promise<McpServerRecord[]> {
  if (names.length === 0) return [];
  const rows = await prisma.mcpServer.findMany({ where: { name: { in: [...names] } }, select: recordSelect });
  const byName = new Map(rows.map((r) => [r.name, toRecord(r)]));
  const missing = names.filter((n) => !byName.has(n));
  if (orThrow && missing.length)
    throw new AppError("BAD_INPUT", `unknown MCP server${missing.length > 1 ? "s" : ""} ${missing.map((n) => `"${n}"`).join(", ")}`);
  return names.flatMap((n) => byName.get(n) ?? []);
}

/** The server called `name`. @throws AppError NOT_FOUND. */
export async function getMcpServerOrThrow({ prisma, name }: { prisma: PrismaClient; name: string }): Promise<McpServerRecord> {
  const row = await prisma.mcpServer.findUnique({ where: { name }, select: recordSelect });
  if (!row) throw new AppError("NOT_FOUND", `MCP server "${name}" not found`);
  return toRecord(row);
}

/**
 * Creates or updates the server named `spec.name`. The version goes up by one only when the
 * normalised spec differs from the stored one; an archived server that is upserted again is
 * unarchived (that counts as a change). Concurrent upserts of one name are serialised by a row lock.
 * Returns the record and `changed` (false: nothing was written), `created`.
 * @throws AppError BAD_REQUEST for a spec that does not validate (nothing is written).
 */
export async function upsertMcpServer({
  prisma,
  spec: input,
  actor,
}: {
  prisma: PrismaClient;
  spec: unknown;
  actor: string;
}): Promise<{ server: McpServerRecord; changed: boolean; created: boolean }> {
  const spec = normaliseMcpServerSpec(input);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('mcp_server:' || ${spec.name}))`;
    const existing = await tx.mcpServer.findUnique({ where: { name: spec.name }, select: recordSelect });
    if (!existing) {
      const row = await tx.mcpServer.create({ data: { name: spec.name, spec, createdBy: actor }, select: recordSelect });
      return { server: toRecord(row), changed: true, created: true };
    }
    const same = canonicalize(existing.spec) === canonicalize(spec);
    if (same && existing.archivedAt === null) return { server: toRecord(existing), changed: false, created: false };
    const row = await tx.mcpServer.update({
      where: { name: spec.name },
      data: { spec, version: same ? existing.version : existing.version + 1, archivedAt: null },
      select: recordSelect,
    });
    return { server: toRecord(row), changed: true, created: false };
  });
}

/**
 * Archives server `name` (new runs are no longer offered its tools; runs that snapshotted them keep
 * them). Idempotent: returns `changed: false` when it was archived already. @throws AppError NOT_FOUND.
 */
export async function archiveMcpServer({ prisma, name }: { prisma: PrismaClient; name: string }): Promise<{ server: McpServerRecord; changed: boolean }> {
  const updated = await prisma.mcpServer.updateMany({ where: { name, archivedAt: null }, data: { archivedAt: new Date() } });
  const server = await getMcpServerOrThrow({ prisma, name });
  return { server, changed: updated.count === 1 };
}

/**
 * Records a start (or connection) of server `name` at `version`: pid, serverInfo, the discovered
 * tools; clears the last error; counts a restart when the last unexpected exit came after the last
 * start. Writes nothing when the stored version moved on (an older process must not overwrite a
 * newer registration's health).
 */
export async function recordMcpServerStart({
  prisma,
  name,
  version,
  pid,
  serverInfo,
  discoveredTools,
}: {
  prisma: PrismaClient;
  name: string;
  version: number;
  pid: number | null;
  serverInfo: { name: string; version: string } | null;
  /** The tools the server listed (written through McpServer.discoveredTools' codec). */
  discoveredTools: DiscoveredTool[];
}): Promise<void> {
  const now = new Date();
  await prisma.$transaction(async (tx) => {
    const row = await tx.mcpServer.findFirst({ where: { name, version }, select: { lastStartedAt: true, lastExitAt: true } });
    if (!row) return;
    const afterExit = row.lastExitAt !== null && (row.lastStartedAt === null || row.lastExitAt >= row.lastStartedAt);
    await tx.mcpServer.updateMany({
      where: { name, version },
      data: {
        lastStartedAt: now,
        lastPid: pid,
        serverInfo: mcpServerServerInfoJson.encodeOptional(serverInfo),
        discoveredTools: mcpServerDiscoveredToolsJson.encode(discoveredTools),
        discoveredAt: now,
        lastError: null,
        lastErrorAt: null,
        ...(afterExit ? { restarts: { increment: 1 } } : {}),
      },
    });
  });
}

/**
 * Records an unexpected exit of server `name`'s stdio process `pid`: when, its code or signal, and
 * the last error in words (stderr included). The pid is cleared when it is the one recorded (the
 * admin page shows a live pid, never a dead one).
 */
export async function recordMcpServerExit({
  prisma,
  name,
  pid,
  code,
  signal,
  at,
  error,
}: {
  prisma: PrismaClient;
  name: string;
  pid: number | null;
  code: number | null;
  signal: string | null;
  at: Date;
  error: string;
}): Promise<void> {
  await prisma.$transaction([
    prisma.mcpServer.updateMany({
      where: { name },
      data: { lastExitAt: at, lastExitCode: code, lastExitSignal: signal, lastError: error.slice(0, 4000), lastErrorAt: at },
    }),
    ...(pid !== null ? [prisma.mcpServer.updateMany({ where: { name, lastPid: pid }, data: { lastPid: null } })] : []),
  ]);
}

/** Records the last error of server `name` in words (cut to 4,000 characters). */
export async function recordMcpServerError({ prisma, name, error }: { prisma: PrismaClient; name: string; error: string }): Promise<void> {
  await prisma.mcpServer.updateMany({ where: { name }, data: { lastError: error.slice(0, 4000), lastErrorAt: new Date() } });
}

/**
 * Sets (or, with `override` null or empty, removes) the admin's class override of tool `tool` of
 * server `name` (lib/contracts/mcp.ts `mcpToolOverrideSchema`: readOnly, idempotent, destructive,
 * openWorld, disabled — each field left out keeps the tool's annotation). A change makes a new
 * version of the server: tasks launched from then on snapshot the tools with the new class; tasks
 * launched before keep theirs. Returns the record and `changed`.
 * @throws AppError NOT_FOUND (unknown server), BAD_INPUT (an archived server; a bad override, naming the field).
 */
export async function setMcpToolOverride({
  prisma,
  name,
  tool,
  override,
  actor,
}: {
  prisma: PrismaClient;
  name: string;
  tool: string;
  override: McpToolOverride | null;
  actor: string;
}): Promise<{ server: McpServerRecord; changed: boolean }> {
  const current = await getMcpServerOrThrow({ prisma, name });
  if (current.archivedAt) throw new AppError("BAD_INPUT", `MCP server "${name}" is archived; register it again before overriding its tools`);
  const tools = { ...current.spec.tools };
  const kept = override ? Object.fromEntries(Object.entries(override).filter(([, v]) => v !== undefined)) : {};
  if (Object.keys(kept).length) tools[tool] = kept;
  else delete tools[tool];
  const { server, changed } = await upsertMcpServer({ prisma, spec: { ...current.spec, tools }, actor });
  return { server, changed };
}

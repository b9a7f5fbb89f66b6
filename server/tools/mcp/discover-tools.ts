import { mcpSelectionsSchema, qualifiedToolName, type McpSelection } from "../../../lib/contracts/mcp.ts";
import type { PrismaClient } from "../../db/client.ts";
import { getMcpServerOrThrow, getMcpServersByNames, recordMcpServerError, type McpServerRecord } from "../../db/mcp-server-repository.ts";
import { AppError } from "../../errors.ts";
import { builtinToolNames } from "../registry.ts";
import { connectMcpServer, McpServerStartError, stopMcpServer, type McpConnection } from "./runtime.ts";
import { mcpHealthHooks } from "./health-hooks.ts";
import {
  buildToolSnapshot,
  classifyTool,
  type ClassSource,
  type DiscoveredServer,
  type McpToolSnapshot,
  type ToolClass,
} from "../../domain/mcp-tool-snapshot.ts";

/**
 * Discovery at launch ("the tool list is part of the run's state"): start (or reuse) each
 * MCP server a profile selects, list its tools, record its health, and build the snapshot the task
 * keeps in `Task.mcpTools` for all its runs.
 */

/**
 * The MCP selection of a profile's `mcpServers` column (lib/contracts/mcp.ts `mcpSelectionsSchema`),
 * parsed again as read back (JSON read from the database is never trusted to have its shape). @throws AppError BAD_INPUT naming the field.
 */
export function parseProfileMcpSelections(value: unknown, profileName: string): McpSelection[] {
  const parsed = mcpSelectionsSchema.safeParse(value ?? []);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      "BAD_INPUT",
      `profile "${profileName}": mcpServers${issue?.path.length ? `.${issue.path.join(".")}` : ""}: ${issue?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}

/**
 * Starts (or reuses) one registered server; a fresh start records its health (pid, serverInfo,
 * tools) through the runtime's hooks, and so does a later exit. The start error in words, stderr
 * included, is recorded as the server's last error.
 */
export async function startAndRecord({ prisma, server }: { prisma: PrismaClient; server: McpServerRecord }): Promise<McpConnection> {
  try {
    return await connectMcpServer({ name: server.name, version: server.version, spec: server.spec }, mcpHealthHooks(prisma));
  } catch (error) {
    if (error instanceof McpServerStartError) await recordMcpServerError({ prisma, name: server.name, error: error.message });
    throw error;
  }
}

/**
 * The snapshot of the tools `selections` picks, or null when it picks no server. Each server is
 * started (or its live connection reused) and listed now.
 * @throws AppError BAD_INPUT (an unknown or archived server, a selected tool the server does not
 *   have, too many tools), PRECONDITION_FAILED (a server that cannot start: the message says why,
 *   with its stderr) — the launch then creates nothing.
 */
export async function discoverMcpToolSnapshot({
  prisma,
  selections,
  now = new Date(),
}: {
  prisma: PrismaClient;
  selections: readonly McpSelection[];
  now?: Date;
}): Promise<McpToolSnapshot | null> {
  if (selections.length === 0) return null;
  const servers = await getMcpServersByNames({ prisma, names: selections.map((s) => s.server), orThrow: true });
  const archived = servers.filter((s) => s.archivedAt);
  if (archived.length) throw new AppError("BAD_INPUT", `MCP server ${archived.map((s) => `"${s.name}"`).join(", ")} is archived; a new task cannot use it`);
  const discovered: DiscoveredServer[] = [];
  for (const server of servers) {
    let connection: McpConnection;
    try {
      connection = await startAndRecord({ prisma, server });
    } catch (error) {
      if (error instanceof McpServerStartError) throw new AppError("PRECONDITION_FAILED", error.message, { cause: error });
      throw error;
    }
    discovered.push({ name: server.name, version: server.version, serverInfo: connection.serverInfo, tools: connection.tools, overrides: server.spec.tools });
  }
  try {
    return buildToolSnapshot({ selections, servers: discovered, builtinNames: builtinToolNames, takenAt: now });
  } catch (error) {
    throw new AppError("BAD_INPUT", error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** What "Test" on a registered server found: it started and listed its tools, or the error in words. */
export type McpServerTestResult =
  | {
      ok: true;
      name: string;
      version: number;
      pid: number | null;
      serverInfo: { name: string; version: string } | null;
      /** Milliseconds from spawn (or connect) to the end of tools/list. */
      startMs: number;
      tools: { name: string; qualifiedName: string; description: string; class: ToolClass; classSource: ClassSource }[];
    }
  | { ok: false; name: string; version: number; error: string };

/**
 * Starts registered server `name` afresh (any live connection of this process is stopped first),
 * lists its tools with their class (annotations + the admin's overrides) and records its health.
 * A server that cannot start is `{ok: false, error}` (its stderr included), recorded as its last
 * error. @throws AppError NOT_FOUND for an unknown server.
 */
export async function testMcpServer({ prisma, name }: { prisma: PrismaClient; name: string }): Promise<McpServerTestResult> {
  const server = await getMcpServerOrThrow({ prisma, name });
  await stopMcpServer(name);
  const started = Date.now();
  try {
    const connection = await startAndRecord({ prisma, server });
    return {
      ok: true,
      name,
      version: server.version,
      pid: connection.pid,
      serverInfo: connection.serverInfo,
      startMs: Date.now() - started,
      tools: connection.tools.map((t) => ({
        name: t.name,
        qualifiedName: qualifiedToolName(name, t.name),
        description: t.description.slice(0, 300),
        ...classifyTool(t.annotations, server.spec.tools[t.name]),
      })),
    };
  } catch (error) {
    if (error instanceof McpServerStartError) return { ok: false, name, version: server.version, error: error.message };
    throw error;
  }
}

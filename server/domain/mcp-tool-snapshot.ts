import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { z } from "zod";
import { qualifiedToolName, type McpSelection, type McpToolOverride } from "../../lib/contracts/mcp.ts";

/**
 * The MCP tools a task's runs are offered ("the tool list is part of the run's state"):
 * discovered at launch with `tools/list`, filtered by the profile's selection and the admin's
 * overrides, classified, and stored on the task (`task.mcpTools`). Every run of the task — resume
 * included — offers exactly this list; a server whose tools changed since is noticed by comparing
 * {@link toolsHash} values. Pure: no I/O here (server/tools/mcp/runtime.ts does the discovery).
 */

/** Most bytes of JSON one snapshot may take (it travels in the executor's step outputs, 4 MiB each). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024;
/** Most tools one run is offered from MCP servers (OpenAI accepts 128 tools per request). */
export const MAX_MCP_TOOLS = 100;

/** MCP tool annotations (spec 2025-06-18 "ToolAnnotations"); all hints optional. */
export const toolAnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .loose();
export type ToolAnnotations = z.infer<typeof toolAnnotationsSchema>;

/**
 * A tool's class (docs/ARCHITECTURE.md "Words": tool class): what Longhaul does with its calls.
 * - readOnly: memoized step, retried freely, no ledger.
 * - otherwise side-effecting: the side-effect ledger; `idempotent` lets an unknown outcome be
 *   settled by calling again with the same idempotency key instead of escalating.
 * - openWorld: the egress gate scans its arguments before the call.
 * - destructive: risky — checkpoint before it, approval when the task asks for it.
 */
export const toolClassSchema = z.object({ readOnly: z.boolean(), idempotent: z.boolean(), destructive: z.boolean(), openWorld: z.boolean() });
export type ToolClass = z.infer<typeof toolClassSchema>;

/** Where each part of a class came from: the tool's annotation, the admin's override, or the conservative default. */
export type ClassSource = Record<keyof ToolClass, "annotation" | "override" | "default">;

/** One tool as discovered from `tools/list` (before selection and overrides). */
export const discoveredToolSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().default(""),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: toolAnnotationsSchema.optional(),
});
export type DiscoveredTool = z.infer<typeof discoveredToolSchema>;

/** One offered tool of a snapshot. */
export const snapshotToolSchema = z.object({
  /** Qualified name the model and the timeline see: `<server>__<tool>`. */
  name: z.string(),
  server: z.string(),
  /** The tool's own name on its server (what `tools/call` sends). */
  tool: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: toolAnnotationsSchema.optional(),
  class: toolClassSchema,
  classSource: z.record(z.string(), z.enum(["annotation", "override", "default"])),
  /** The input-schema property that takes an idempotency key (`idempotencyKey`, `idempotency_key`…), or null. */
  idempotencyArgument: z.string().nullable(),
});
export type SnapshotTool = z.infer<typeof snapshotToolSchema>;

export const snapshotServerSchema = z.object({
  name: z.string(),
  /** Version of the registration (McpServer.version) the tools were discovered with. */
  version: z.number().int(),
  /** `initialize`'s serverInfo. */
  serverInfo: z.object({ name: z.string(), version: z.string() }).loose().nullable(),
  /** sha256 of the server's whole tools/list (canonical JSON, sorted by name): changes when any tool changes. */
  toolsHash: z.string(),
  /** Every tool name the server listed at launch (offered or not); absent in snapshots taken before it was kept. */
  listedTools: z.array(z.string()).optional(),
  tools: z.array(snapshotToolSchema),
});
export type SnapshotServer = z.infer<typeof snapshotServerSchema>;

export const mcpToolSnapshotSchema = z.object({ takenAt: z.string(), servers: z.array(snapshotServerSchema) });
export type McpToolSnapshot = z.infer<typeof mcpToolSnapshotSchema>;

/** Property names taken as an idempotency-key argument (case-insensitive, `-`/`_` ignored). */
const IDEMPOTENCY_ARGUMENT = /^(idempotency|request|dedup(lication)?)key$/;

/** The input-schema property that takes an idempotency key, or null (a string property named idempotencyKey, idempotency_key, …). */
export function idempotencyArgumentOf(inputSchema: Record<string, unknown>): string | null {
  const properties = inputSchema.properties;
  if (!properties || typeof properties !== "object") return null;
  for (const [name, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (!IDEMPOTENCY_ARGUMENT.test(name.toLowerCase().replace(/[-_]/g, ""))) continue;
    const type = (schema as { type?: unknown } | null)?.type;
    if (type === undefined || type === "string" || (Array.isArray(type) && type.includes("string"))) return name;
  }
  return null;
}

/**
 * A tool's class from its annotations and the admin's override ({@link toolClassSchema}). Each part:
 * the override if set, else the annotation, else the MCP spec's default (2025-06-18
 * "ToolAnnotations": readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint
 * true) — so a tool without annotations is side-effecting, not idempotent, destructive (approval
 * when the task asks for it) and open-world (egress gate). A read-only tool is never destructive
 * (MCP spec: destructiveHint is meaningful only when readOnlyHint is false).
 */
export function classifyTool(annotations: ToolAnnotations | undefined, override: McpToolOverride | undefined): { class: ToolClass; classSource: ClassSource } {
  const pick = (o: boolean | undefined, a: boolean | undefined, fallback: boolean): [boolean, ClassSource[keyof ToolClass]] =>
    o !== undefined ? [o, "override"] : a !== undefined ? [a, "annotation"] : [fallback, "default"];
  const [readOnly, readOnlySource] = pick(override?.readOnly, annotations?.readOnlyHint, false);
  const [destructiveRaw, destructiveSource] = pick(override?.destructive, annotations?.destructiveHint, true);
  const [idempotent, idempotentSource] = pick(override?.idempotent, annotations?.idempotentHint, false);
  const [openWorld, openWorldSource] = pick(override?.openWorld, annotations?.openWorldHint, true);
  return {
    class: { readOnly, idempotent: readOnly || idempotent, destructive: !readOnly && destructiveRaw, openWorld },
    classSource: { readOnly: readOnlySource, idempotent: idempotentSource, destructive: destructiveSource, openWorld: openWorldSource },
  };
}

/** sha256 (hex) of a server's tools/list, canonical and sorted by name: equal lists, equal hashes. */
export function toolsHash(tools: readonly DiscoveredTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash("sha256")
    .update(canonicalize(sorted) ?? "[]")
    .digest("hex");
}

/** How a server's tools/list now differs from a task's snapshot of it. */
export interface SnapshotToolsDiff {
  /** Listed now, not listed at launch (or, for an older snapshot, not offered). */
  added: string[];
  /** Offered to the task, no longer listed. */
  removed: string[];
  /** Offered and still listed, with the fields that differ from the snapshot's. */
  changed: { tool: string; fields: ("description" | "inputSchema" | "outputSchema" | "annotations")[] }[];
}

/**
 * The tools of `live` (the server's tools/list now) against snapshot server `server`: added,
 * removed and changed ones ({@link SnapshotToolsDiff}). A tool's description is compared as the
 * snapshot derives it. Pure.
 */
export function diffSnapshotTools(server: SnapshotServer, live: readonly DiscoveredTool[]): SnapshotToolsDiff {
  const known = new Set(server.listedTools ?? server.tools.map((t) => t.tool));
  const byName = new Map(live.map((t) => [t.name, t]));
  const same = (a: unknown, b: unknown) => canonicalize(a ?? null) === canonicalize(b ?? null);
  const changed: SnapshotToolsDiff["changed"] = [];
  for (const t of server.tools) {
    const now = byName.get(t.tool);
    if (!now) continue;
    const fields: SnapshotToolsDiff["changed"][number]["fields"] = [];
    if ((now.description || now.title || now.annotations?.title || now.name).slice(0, 4000) !== t.description) fields.push("description");
    if (!same(now.inputSchema, t.inputSchema)) fields.push("inputSchema");
    if (!same(now.outputSchema, t.outputSchema)) fields.push("outputSchema");
    if (!same(now.annotations, t.annotations)) fields.push("annotations");
    if (fields.length) changed.push({ tool: t.tool, fields });
  }
  return {
    added: live.map((t) => t.name).filter((n) => !known.has(n)),
    removed: server.tools.map((t) => t.tool).filter((n) => !byName.has(n)),
    changed,
  };
}

/** One server's side of building a snapshot. */
export interface DiscoveredServer {
  name: string;
  version: number;
  serverInfo: { name: string; version: string } | null;
  tools: DiscoveredTool[];
  overrides: Record<string, McpToolOverride>;
}

/**
 * Builds the snapshot a task's runs are offered: for each selection, the server's discovered tools,
 * only those it names (all when it names none), minus those an admin disabled, each classified and
 * qualified. @throws Error naming the problem: a selected tool the server does not have, two tools
 * with one qualified name, more than {@link MAX_MCP_TOOLS} tools, a snapshot over
 * {@link MAX_SNAPSHOT_BYTES}.
 */
export function buildToolSnapshot({
  selections,
  servers,
  builtinNames,
  takenAt,
}: {
  selections: readonly McpSelection[];
  servers: readonly DiscoveredServer[];
  /** Built-in tool names: a qualified name may never shadow one. */
  builtinNames: readonly string[];
  takenAt: Date;
}): McpToolSnapshot {
  const taken = new Set(builtinNames);
  const out: SnapshotServer[] = [];
  let count = 0;
  for (const selection of selections) {
    const server = servers.find((s) => s.name === selection.server);
    if (!server) throw new Error(`MCP server "${selection.server}" was not discovered`);
    const byName = new Map(server.tools.map((t) => [t.name, t]));
    const missing = (selection.tools ?? []).filter((t) => !byName.has(t));
    if (missing.length) {
      throw new Error(
        `MCP server "${server.name}" has no tool${missing.length > 1 ? "s" : ""} ${missing.map((m) => `"${m}"`).join(", ")} (it has ${[...byName.keys()].join(", ") || "none"})`,
      );
    }
    const picked = (selection.tools ?? [...byName.keys()]).map((n) => byName.get(n)!).filter((t) => !server.overrides[t.name]?.disabled);
    const tools: SnapshotTool[] = [];
    for (const t of picked) {
      const name = qualifiedToolName(server.name, t.name);
      if (taken.has(name)) throw new Error(`MCP tool "${t.name}" of server "${server.name}" maps to "${name}", a name already taken in this run`);
      taken.add(name);
      const classified = classifyTool(t.annotations, server.overrides[t.name]);
      tools.push({
        name,
        server: server.name,
        tool: t.name,
        description: (t.description || t.title || t.annotations?.title || t.name).slice(0, 4000),
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        ...(t.annotations ? { annotations: t.annotations } : {}),
        class: classified.class,
        classSource: classified.classSource,
        idempotencyArgument: idempotencyArgumentOf(t.inputSchema),
      });
    }
    count += tools.length;
    if (count > MAX_MCP_TOOLS)
      throw new Error(`a run may be offered at most ${MAX_MCP_TOOLS} MCP tools; the profile's selection gives ${count} or more — pick a subset`);
    out.push({
      name: server.name,
      version: server.version,
      serverInfo: server.serverInfo,
      toolsHash: toolsHash(server.tools),
      listedTools: server.tools.map((t) => t.name),
      tools,
    });
  }
  const snapshot = { takenAt: takenAt.toISOString(), servers: out };
  const bytes = Buffer.byteLength(JSON.stringify(snapshot));
  if (bytes > MAX_SNAPSHOT_BYTES)
    throw new Error(`the MCP tool list is ${bytes} bytes of JSON, over the ${MAX_SNAPSHOT_BYTES} a run may carry — pick fewer tools`);
  return snapshot;
}

/** The snapshot stored on a task, parsed (null: none or unreadable — a run then offers no MCP tools). */
export function parseToolSnapshot(value: unknown): McpToolSnapshot | null {
  if (value === null || value === undefined) return null;
  const parsed = mcpToolSnapshotSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The offered tool called `qualifiedName`, or undefined. */
export function findSnapshotTool(snapshot: McpToolSnapshot | null, qualifiedName: string): { server: SnapshotServer; tool: SnapshotTool } | undefined {
  for (const server of snapshot?.servers ?? []) {
    const tool = server.tools.find((t) => t.name === qualifiedName);
    if (tool) return { server, tool };
  }
  return undefined;
}

/** The offered tools' qualified names, in order. */
export function snapshotToolNames(snapshot: McpToolSnapshot | null): string[] {
  return (snapshot?.servers ?? []).flatMap((s) => s.tools.map((t) => t.name));
}

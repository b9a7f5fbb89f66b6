/**
 * MCP servers as Longhaul stores and applies them (an admin registers a team's own tools), and
 * how a profile picks their tools. Client-safe: the admin page, the CLI's `profiles apply` file and
 * the server all validate with these schemas, so a bad entry is refused in the same words everywhere.
 *
 * Secrets are never stored: an environment variable or header value is either a literal that is not
 * a secret (`{ value }`) or the name of a variable in Longhaul's own environment (`{ fromEnv }`),
 * read when the server starts.
 */
import { z } from "./zod.ts";

/** Names of MCP servers: lowercase, short, so `<server>__<tool>` stays readable and within 64 characters. */
export const MCP_SERVER_NAME = /^[a-z][a-z0-9-]{0,23}$/;
/**
 * Tool names as the MCP spec allows them (2025-06-18, "Tool names": 1–128 characters of
 * `[A-Za-z0-9_.-]`); OpenAI's Chat Completions function names allow only `^[a-zA-Z0-9_-]{1,64}$`,
 * so the qualified name replaces any other character with `_` (`qualifiedToolName`).
 */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;
/** Separator of a server-qualified tool name: `memory__create_entities` (as Claude Code's `mcp__server__tool`). */
export const QUALIFIED_SEPARATOR = "__";
/** OpenAI function-name limit (Chat Completions `tools[].function.name`). */
export const FUNCTION_NAME_MAX = 64;

const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
const headerName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, "must be an HTTP header name");

/** A value handed to a server: a literal that is not a secret, or the name of a variable of Longhaul's environment. */
export const mcpValueSchema = z.union([
  z.strictObject({ value: z.string().max(4096, "must be at most 4,096 characters") }),
  z.strictObject({ fromEnv: envVarName }),
]);
export type McpValue = z.infer<typeof mcpValueSchema>;

export const mcpStdioTransportSchema = z.strictObject({
  type: z.literal("stdio"),
  /** Program to start (looked up on PATH, or a path), e.g. "npx" or "node". */
  command: z.string().min(1, "must not be empty").max(1000, "must be at most 1,000 characters"),
  args: z.array(z.string().max(4096, "must be at most 4,096 characters")).max(100, "must have at most 100 entries").default([]),
  /** Variables set for the server process (the server sees only these plus PATH/HOME, as the SDK's default environment). */
  env: z.record(envVarName, mcpValueSchema).default({}),
  /** Working folder of the server process (absolute); default: Longhaul's folder. */
  cwd: z.string().max(1000).optional(),
});

export const mcpHttpTransportSchema = z.strictObject({
  /** Streamable HTTP (MCP spec 2025-03-26 and later). */
  type: z.literal("http"),
  url: z
    .string()
    .max(2000, "must be at most 2,000 characters")
    .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "must be an http(s) URL"),
  headers: z.record(headerName, mcpValueSchema).default({}),
});

/**
 * What an admin may say about one tool of a server, overriding its MCP annotations
 * (docs/ARCHITECTURE.md "Words": tool class): any field left out keeps the annotation (or, without one, the
 * MCP spec's defaults: side-effecting, not idempotent, destructive, open-world).
 */
export const mcpToolOverrideSchema = z.strictObject({
  readOnly: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  destructive: z.boolean().optional(),
  openWorld: z.boolean().optional(),
  /** Never offered to any agent. */
  disabled: z.boolean().optional(),
});
export type McpToolOverride = z.infer<typeof mcpToolOverrideSchema>;

/** One MCP server as an admin registers it (browser, API, or a `profiles apply` file's `mcpServers:`). */
export const mcpServerSpecSchema = z.strictObject({
  name: z.string().regex(MCP_SERVER_NAME, "must be 1–24 characters of a-z, 0-9 and -, starting with a letter"),
  description: z.string().max(2000, "must be at most 2,000 characters").default(""),
  transport: z.discriminatedUnion("type", [mcpStdioTransportSchema, mcpHttpTransportSchema]),
  /** How long starting (stdio) or connecting plus `initialize` and `tools/list` may take, ms. */
  startTimeoutMs: z.number().int().min(1000, "must be at least 1000").max(300_000, "must be at most 300000").default(30_000),
  /** How long one `tools/call` may take, ms (progress notifications do not extend it). */
  callTimeoutMs: z.number().int().min(1000, "must be at least 1000").max(3_600_000, "must be at most 3600000").default(60_000),
  /** Per-tool overrides by the tool's own (unqualified) name. */
  tools: z.record(z.string().regex(MCP_TOOL_NAME, "must be an MCP tool name"), mcpToolOverrideSchema).default({}),
});
export type McpServerSpec = z.infer<typeof mcpServerSpecSchema>;
export type McpServerSpecInput = z.input<typeof mcpServerSpecSchema>;

/** How a profile picks a server's tools: all of them (no `tools`), or a subset by unqualified name. */
export const mcpSelectionSchema = z.strictObject({
  server: z.string().regex(MCP_SERVER_NAME, "must name a registered MCP server"),
  tools: z.array(z.string().regex(MCP_TOOL_NAME, "must be an MCP tool name")).min(1, "must list at least one tool, or be left out for all").max(200).optional(),
});
export type McpSelection = z.infer<typeof mcpSelectionSchema>;
export const mcpSelectionsSchema = z.array(mcpSelectionSchema).max(20, "must pick at most 20 servers");

/**
 * The name the model and the timeline see for a server's tool: `<server>__<tool>`, characters outside
 * `[A-Za-z0-9_-]` replaced by `_`, cut to 64 (OpenAI's function-name limit). Unique within a run:
 * the snapshot refuses two tools that map to one name.
 */
export function qualifiedToolName(server: string, tool: string): string {
  return `${server}${QUALIFIED_SEPARATOR}${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`.slice(0, FUNCTION_NAME_MAX);
}

/** The server part of a qualified name, or null for a built-in tool name. */
export function serverOfQualifiedName(name: string): string | null {
  const at = name.indexOf(QUALIFIED_SEPARATOR);
  return at > 0 ? name.slice(0, at) : null;
}

/** The four parts of an MCP tool's class (annotations + an admin's override: server/domain/mcp-tool-snapshot.ts `classifyTool`). */
export interface ToolClassParts {
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  openWorld: boolean;
}

/**
 * A tool's class in the words the admin page and the CLI's `mcp tools` both use: "read-only",
 * "side effect (idempotent)" or "side effect", then ", destructive (risky)" (approval when the task
 * asks for it) and ", open-world (egress gate)". The parts are MCP's ToolAnnotations hints
 * (readOnlyHint, idempotentHint, destructiveHint, openWorldHint; spec 2025-06-18). Pure.
 */
export function toolClassWords(c: ToolClassParts): string {
  return `${c.readOnly ? "read-only" : c.idempotent ? "side effect (idempotent)" : "side effect"}${c.destructive ? ", destructive (risky)" : ""}${c.openWorld ? ", open-world (egress gate)" : ""}`;
}

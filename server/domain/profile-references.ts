import type { McpSelection, McpValue } from "../../lib/contracts/mcp.ts";

/**
 * References a profile or an MCP server makes to things outside its own text — the environment
 * variable holding a key (`apiKeyEnv`), a `${NAME}` in a header value, an MCP server's `fromEnv`
 * values, the tools a profile picks from a server — and which of them cannot be resolved now. A
 * profile whose key variable is unset launches tasks whose every model call is refused (401); a
 * subset naming a tool the server does not offer fails at launch. `profiles apply` warns about each
 * one (naming the entry, the field and the variable or tool) and a launch refuses in the same words.
 * Pure: the caller says which variables are set and what each server last listed.
 */

/** One reference that cannot be resolved, in words: `entry` and `field` name where it is written. */
export interface UnresolvedReference {
  /** `profile "team-gpt"` or `MCP server "tracker"`. */
  entry: string;
  /** The field path inside the entry: `apiKeyEnv`, `headers.Authorization`, `transport.env.API_TOKEN`, `mcpServers[0].tools`. */
  field: string;
  kind: "variable" | "tool";
  /** The variable's or the tool's name. */
  name: string;
  /** One line: `profile "team-gpt": apiKeyEnv: the environment variable TEAM_KEY is not set where Longhaul runs`. */
  message: string;
}

/** The parts of a profile that refer to something outside it. */
export interface ProfileReferences {
  name: string;
  /** `scripted` profiles call the local scripted model server with no key: their key fields are not used. */
  provider: string;
  apiKeyEnv: string | null;
  headers: Readonly<Record<string, string>>;
  mcpServers: readonly McpSelection[];
}

/** The parts of an MCP server that refer to something outside it, and the tools it listed last (null: never listed). */
export interface McpServerReferences {
  name: string;
  transport: { type: "stdio"; env: Readonly<Record<string, McpValue>> } | { type: "http"; headers: Readonly<Record<string, McpValue>> };
  /** The tool names of its last `tools/list` (McpServer.discoveredTools), or null when it never started. */
  listedTools: readonly string[] | null;
}

const HEADER_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const unsetVariable = (entry: string, field: string, name: string): UnresolvedReference => ({
  entry,
  field,
  kind: "variable",
  name,
  message: `${entry}: ${field}: the environment variable ${name} is not set where Longhaul runs`,
});

/**
 * The unresolved references of MCP server `server`: each `fromEnv` of its process environment
 * (stdio) or headers (http) naming a variable `isSet` says is unset.
 */
export function unresolvedServerReferences(server: McpServerReferences, isSet: (name: string) => boolean): UnresolvedReference[] {
  const entry = `MCP server "${server.name}"`;
  const values = server.transport.type === "stdio" ? server.transport.env : server.transport.headers;
  const prefix = server.transport.type === "stdio" ? "transport.env" : "transport.headers";
  return Object.entries(values).flatMap(([key, value]) =>
    "fromEnv" in value && !isSet(value.fromEnv) ? [unsetVariable(entry, `${prefix}.${key}`, value.fromEnv)] : [],
  );
}

/**
 * The unresolved references of a profile: its `apiKeyEnv` and the `${NAME}`s of its header values
 * (not for `scripted` profiles, which send neither), and each tool of an `mcpServers[i].tools`
 * subset that the server's last `tools/list` did not offer (a server never listed cannot be
 * checked: nothing is said). A selection of an unregistered server is refused elsewhere.
 */
export function unresolvedProfileReferences(
  profile: ProfileReferences,
  { isSet, servers }: { isSet: (name: string) => boolean; servers: ReadonlyMap<string, McpServerReferences> },
): UnresolvedReference[] {
  const entry = `profile "${profile.name}"`;
  const out: UnresolvedReference[] = [];
  if (profile.provider !== "scripted") {
    if (profile.apiKeyEnv && !isSet(profile.apiKeyEnv)) out.push(unsetVariable(entry, "apiKeyEnv", profile.apiKeyEnv));
    for (const [header, value] of Object.entries(profile.headers)) {
      for (const [, name] of value.matchAll(HEADER_REFERENCE)) if (name && !isSet(name)) out.push(unsetVariable(entry, `headers.${header}`, name));
    }
  }
  profile.mcpServers.forEach((selection, i) => {
    const listed = servers.get(selection.server)?.listedTools;
    if (!selection.tools || !listed) return;
    const offered = new Set(listed);
    for (const tool of selection.tools.filter((t) => !offered.has(t))) {
      const some = [...offered].sort().slice(0, 20);
      out.push({
        entry,
        field: `mcpServers[${i}].tools`,
        kind: "tool",
        name: tool,
        message: `${entry}: mcpServers[${i}].tools: the MCP server "${selection.server}" does not offer the tool "${tool}" (it offers ${some.length ? some.join(", ") : "no tools"}${offered.size > some.length ? ", …" : ""})`,
      });
    }
  });
  return out;
}

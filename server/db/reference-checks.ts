import type { McpServerSpec } from "../../lib/contracts/mcp.ts";
import { unresolvedProfileReferences, unresolvedServerReferences, type McpServerReferences, type UnresolvedReference } from "../domain/profile-references.ts";
import type { ProfileSpec } from "../domain/profile-spec.ts";
import { namedVariables } from "../env.ts";
import type { PrismaClient } from "./client.ts";
import { listMcpServers } from "./mcp-server-repository.ts";

/**
 * The unresolved references (server/domain/profile-references.ts) of profiles and MCP servers
 * against this process's environment and the servers' last tool lists: what `profiles apply` warns
 * about and what a launch refuses.
 */

/** Variables as the model call reads a key or a header (a blank value is no key): set and not blank. */
const keyIsSet = (variables: Readonly<Record<string, string | undefined>>) => (name: string) => (variables[name] ?? "").trim() !== "";
/** Variables as an MCP server's start reads them (server/tools/mcp/runtime.ts resolveMcpValue): set at all. */
const valueIsSet = (variables: Readonly<Record<string, string | undefined>>) => (name: string) => variables[name] !== undefined;

/** The reference parts of a server spec, with the tool names it listed last (`discoveredTools`, null: never). */
export function serverReferencesOf(spec: McpServerSpec, discoveredTools: unknown): McpServerReferences {
  const listed = Array.isArray(discoveredTools)
    ? discoveredTools.flatMap((t) => (t && typeof t === "object" && typeof (t as { name?: unknown }).name === "string" ? [(t as { name: string }).name] : []))
    : null;
  return {
    name: spec.name,
    transport: spec.transport.type === "stdio" ? { type: "stdio", env: spec.transport.env } : { type: "http", headers: spec.transport.headers },
    listedTools: listed,
  };
}

/**
 * What applying `profiles` and `servers` (a document's, already validated) would leave unresolved:
 * each server's `fromEnv` values, each profile's key variable, header variables and tool subsets
 * (checked against the tools the server listed when it last started; a server the document
 * changes is checked against nothing, as its tools are not known until it starts).
 */
export async function unresolvedDocumentReferences({
  prisma,
  profiles,
  servers,
  variables = namedVariables(),
}: {
  prisma: PrismaClient;
  profiles: readonly ProfileSpec[];
  servers: readonly McpServerSpec[];
  variables?: Readonly<Record<string, string | undefined>>;
}): Promise<UnresolvedReference[]> {
  const known = new Map((await listMcpServers({ prisma, includeArchived: true })).map((s) => [s.name, serverReferencesOf(s.spec, s.health.discoveredTools)]));
  for (const s of servers) {
    const stored = known.get(s.name);
    // Unchanged transport: its last tool list still tells what it offers.
    const same = stored && JSON.stringify(stored.transport) === JSON.stringify(serverReferencesOf(s, null).transport);
    known.set(s.name, serverReferencesOf(s, same ? stored.listedTools : null));
  }
  return [
    ...servers.flatMap((s) => unresolvedServerReferences(known.get(s.name)!, valueIsSet(variables))),
    ...profiles.flatMap((p) => unresolvedProfileReferences(p, { isSet: keyIsSet(variables), servers: known })),
  ];
}

/**
 * What a launch on `profile` (its current version's content) cannot resolve now: the profile's key
 * and header variables, and the `fromEnv` values of the MCP servers it selects. A tool subset is
 * checked by the launch's own discovery, against the server's tool list of this moment.
 */
export async function unresolvedLaunchReferences({
  prisma,
  profile,
  variables = namedVariables(),
}: {
  prisma: PrismaClient;
  profile: Pick<ProfileSpec, "name" | "provider" | "apiKeyEnv" | "headers" | "mcpServers">;
  variables?: Readonly<Record<string, string | undefined>>;
}): Promise<UnresolvedReference[]> {
  const selected = new Set(profile.mcpServers.map((s) => s.server));
  const servers = selected.size ? (await listMcpServers({ prisma, includeArchived: true })).filter((s) => selected.has(s.name)) : [];
  return [
    ...unresolvedProfileReferences({ ...profile, mcpServers: [] }, { isSet: keyIsSet(variables), servers: new Map() }),
    ...servers.flatMap((s) => unresolvedServerReferences(serverReferencesOf(s.spec, null), valueIsSet(variables))),
  ];
}

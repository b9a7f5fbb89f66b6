/**
 * `npm run cli -- mcp tools <server> [--refresh]`: a registered MCP server's tools with their class
 * (read-only / side effect, destructive, open-world), as the admin page's MCP section shows them, over
 * the API (`mcpServer.list`, `mcpServer.test` with --refresh). Human lines on stderr, the last stdout
 * line JSON (printed by scripts/cli.ts). Admin only, as the page.
 */
import type { TRPCClient } from "@trpc/client";
import type { AppRouter } from "../../server/api/root.ts";
import { toolClassWords, type ToolClassParts } from "../../lib/contracts/mcp.ts";
import type { CommandSpec, FlagValues } from "./cli-args.ts";
import { terminalSafe } from "./cli-text.ts";

const P = "npm run cli --";

export const MCP_COMMANDS: readonly CommandSpec[] = [
  {
    name: "mcp tools",
    summary: "List a registered MCP server's tools with their class (read-only, side effect, destructive, open-world) and overrides.",
    positionals: [{ name: "server", description: "the MCP server's registered name" }],
    flags: {
      refresh: { type: "boolean", description: "start the server afresh and list what it offers now (else: what it listed at its last start)" },
    },
    notes: [
      "A tool's class decides how a run treats it: read-only tools run freely, side-effecting ones go through the idempotency ledger,",
      "destructive ones wait for approval when the task asks for it, open-world ones pass the egress gate. An admin overrides a class",
      "on the admin page (MCP servers); an overridden part is marked, a disabled tool is never offered to an agent.",
    ],
    examples: [`${P} mcp tools memory`, `${P} mcp tools memory --refresh`],
  },
];

/** One tool as the command prints it in its JSON line. */
interface ToolLine {
  name: string;
  class: ToolClassParts;
  classWords: string;
  overridden: string[];
  disabled: boolean;
  description: string;
}

/**
 * Runs `mcp tools`: the server's tools with their class; with `refresh` the server is started afresh
 * first (`mcpServer.test`), so the list is what it offers now. Returns the JSON to print.
 * @throws Error (a failed command, exit 1) for an unknown server (naming the registered ones) or one that cannot start.
 */
export async function runMcp(api: TRPCClient<AppRouter>, values: FlagValues, positionals: readonly string[]): Promise<unknown> {
  const name = positionals[0]!;
  if (values.refresh === true) {
    const servers = await api.mcpServer.list.query({ includeArchived: true });
    if (!servers.some((s) => s.name === name)) throw unknownServer(name, servers);
    const tested = await api.mcpServer.test.mutate({ name });
    if (!tested.ok) throw new Error(`MCP server ${name} (version ${tested.version}) could not start: ${tested.error}`);
  }
  const servers = await api.mcpServer.list.query({ includeArchived: true });
  const server = servers.find((s) => s.name === name);
  if (!server) throw unknownServer(name, servers);
  const tools: ToolLine[] = server.tools.map((t) => ({
    name: t.name,
    class: t.class,
    classWords: toolClassWords(t.class),
    overridden: Object.entries(t.classSource)
      .filter(([, source]) => source === "override")
      .map(([part]) => part),
    disabled: t.override?.disabled === true,
    description: t.description,
  }));
  const discoveredAt = server.health.discoveredAt;
  process.stderr.write(
    `${terminalSafe(server.name)}${server.archivedAt ? " (archived)" : ""}: ${tools.length} tool${tools.length === 1 ? "" : "s"}` +
      (discoveredAt ? ` listed at its last start, ${discoveredAt.toISOString()}` : " — never started yet (add --refresh to start it and list them)") +
      "\n",
  );
  if (server.health.lastError) process.stderr.write(`  last error: ${terminalSafe(server.health.lastError)}\n`);
  const width = Math.max(0, ...tools.map((t) => t.name.length));
  for (const t of tools) {
    const notes = [...(t.overridden.length ? [`overridden: ${t.overridden.join(", ")}`] : []), ...(t.disabled ? ["never offered"] : [])];
    process.stderr.write(`  ${terminalSafe(t.name).padEnd(width)}  ${t.classWords}${notes.length ? `  (${notes.join("; ")})` : ""}\n`);
    if (t.description) process.stderr.write(`  ${"".padEnd(width)}  ${terminalSafe(t.description.split("\n")[0]!.slice(0, 120))}\n`);
  }
  return { server: server.name, archived: server.archivedAt !== null, discoveredAt: discoveredAt?.toISOString() ?? null, tools };
}

function unknownServer(name: string, servers: readonly { name: string }[]): Error {
  return new Error(
    `no MCP server named "${name}" (registered: ${servers.length ? servers.map((s) => s.name).join(", ") : "none — an admin adds them on the admin page or with profiles apply"})`,
  );
}

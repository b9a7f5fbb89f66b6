"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import type { AppRouter } from "@/server/api/root.ts";

type Server = inferRouterOutputs<AppRouter>["mcpServer"]["list"][number];
type TestResult = inferRouterOutputs<AppRouter>["mcpServer"]["test"];

/** An example registration for the form (stdio; secrets by variable name). */
const EXAMPLE = JSON.stringify(
  {
    name: "my-server",
    description: "What its tools do",
    transport: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env: { API_KEY: { fromEnv: "MY_SERVER_API_KEY" } } },
    callTimeoutMs: 60000,
    tools: { "some-tool": { readOnly: true } },
  },
  null,
  2,
);

function transportText(server: Server): string {
  const t = server.spec.transport;
  return t.type === "stdio" ? `stdio: ${[t.command, ...t.args].join(" ")}` : `http: ${t.url}`;
}

function when(d: Date | string | null): string {
  return d ? new Date(d).toLocaleString() : "never";
}

/** One registered server: its transport, version, health, and Test / Archive. */
function McpServerRow({ server, onEdit }: { server: Server; onEdit: (spec: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries(trpc.mcpServer.pathFilter());
  const [result, setResult] = useState<TestResult | null>(null);
  const test = useMutation(trpc.mcpServer.test.mutationOptions({ onSuccess: (r) => (setResult(r), refresh()) }));
  const archive = useMutation(trpc.mcpServer.archive.mutationOptions({ onSuccess: refresh }));
  const h = server.health;
  const info = h.serverInfo as { name?: string; version?: string } | null;
  const toolCount = Array.isArray(h.discoveredTools) ? h.discoveredTools.length : null;
  return (
    <li className="space-y-1 rounded border border-zinc-200 p-3 text-sm" data-mcp-server={server.name}>
      <div className="flex flex-wrap items-baseline gap-2">
        <span className="font-medium">{server.name}</span>
        <span className="text-xs text-zinc-500">v{server.version}</span>
        {server.archivedAt && <span className="text-xs text-amber-700">archived</span>}
        <span className="text-xs text-zinc-600">{transportText(server)}</span>
      </div>
      {server.spec.description && <p className="text-xs text-zinc-600">{server.spec.description}</p>}
      <p className="text-xs text-zinc-600" data-testid="mcp-health">
        Last started {when(h.lastStartedAt)}
        {h.lastPid ? ` (pid ${h.lastPid})` : ""}
        {info?.name ? ` · ${info.name} ${info.version ?? ""}` : ""}
        {toolCount !== null ? ` · ${toolCount} tools` : ""}
      </p>
      {h.lastError && (
        <p className="text-xs text-red-700" data-testid="mcp-last-error">
          Last error ({when(h.lastErrorAt)}): {h.lastError}
        </p>
      )}
      <div className="flex gap-2">
        <button
          type="button"
          className="rounded border border-zinc-300 px-2 py-1 text-xs"
          disabled={test.isPending}
          onClick={() => test.mutate({ name: server.name })}
        >
          {test.isPending ? "Testing…" : "Test"}
        </button>
        <button type="button" className="rounded border border-zinc-300 px-2 py-1 text-xs" onClick={() => onEdit(JSON.stringify(server.spec, null, 2))}>
          Edit
        </button>
        {!server.archivedAt && (
          <button type="button" className="rounded border border-zinc-300 px-2 py-1 text-xs" onClick={() => archive.mutate({ name: server.name })}>
            Archive
          </button>
        )}
      </div>
      {test.error && <p className="text-xs text-red-700">{test.error.message}</p>}
      {result &&
        (result.ok ? (
          <div className="text-xs text-zinc-700" data-testid="mcp-test-result">
            Started in {result.startMs} ms; {result.tools.length} tools:
            <ul className="mt-1 list-disc pl-5">
              {result.tools.map((t) => (
                <li key={t.name}>
                  <code>{t.qualifiedName}</code> — {t.class.readOnly ? "read-only" : t.class.idempotent ? "side effect (idempotent)" : "side effect"}
                  {t.class.destructive ? ", destructive (risky)" : ""}
                  {t.class.openWorld ? ", open-world (egress gate)" : ""}
                </li>
              ))}
            </ul>
          </div>
        ) : (
          <p className="text-xs text-red-700" data-testid="mcp-test-result">
            {result.error}
          </p>
        ))}
    </li>
  );
}

/** The admin page's "MCP servers" section: the registered servers with their health, Test, Archive, and a JSON form to add or edit one. */
export function McpServersSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const servers = useQuery(trpc.mcpServer.list.queryOptions({ includeArchived: true }));
  const [spec, setSpec] = useState(EXAMPLE);
  const [parseError, setParseError] = useState<string | null>(null);
  const upsert = useMutation(trpc.mcpServer.upsert.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.mcpServer.pathFilter()) }));
  return (
    <section className="space-y-3" aria-label="MCP servers">
      <h2 className="text-lg font-semibold">MCP servers</h2>
      <p className="text-sm text-zinc-600">
        Tool servers the agents reach through the Model Context Protocol. A task snapshots the tools of its profile&apos;s servers at launch; secrets are given
        by environment variable name (<code>{'{ fromEnv: "NAME" }'}</code>), never stored.
      </p>
      {servers.error && <p className="text-sm text-red-700">{servers.error.message}</p>}
      <ul className="space-y-2">
        {servers.data?.map((s) => (
          <McpServerRow key={s.id} server={s} onEdit={setSpec} />
        ))}
        {servers.data?.length === 0 && <li className="text-sm text-zinc-500">No MCP server registered.</li>}
      </ul>
      <form
        className="space-y-2"
        aria-label="Register an MCP server"
        onSubmit={(e) => {
          e.preventDefault();
          let parsed: unknown;
          try {
            parsed = JSON.parse(spec);
          } catch (error) {
            setParseError(`not valid JSON: ${(error as Error).message}`);
            return;
          }
          setParseError(null);
          upsert.mutate({ spec: parsed });
        }}
      >
        <label htmlFor="mcp-spec" className="block text-sm font-medium">
          Register or update (JSON)
        </label>
        <textarea
          id="mcp-spec"
          className="h-48 w-full rounded border border-zinc-300 p-2 font-mono text-xs"
          value={spec}
          onChange={(e) => setSpec(e.target.value)}
        />
        <button type="submit" className="rounded bg-zinc-900 px-3 py-1 text-sm text-white" disabled={upsert.isPending}>
          Save server
        </button>
        {(parseError ?? upsert.error?.message) && <p className="text-xs text-red-700">{parseError ?? upsert.error?.message}</p>}
        {upsert.data && (
          <p className="text-xs text-zinc-600">
            {upsert.data.name}: {upsert.data.created ? "registered" : upsert.data.changed ? `updated to v${upsert.data.version}` : "unchanged"}
          </p>
        )}
      </form>
    </section>
  );
}

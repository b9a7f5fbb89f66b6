"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import type { AppRouter } from "@/server/api/root.ts";

type Server = inferRouterOutputs<AppRouter>["mcpServer"]["list"][number];
type TestResult = inferRouterOutputs<AppRouter>["mcpServer"]["test"];
type ServerTool = Server["tools"][number];

/** The parts of a tool's class an admin may override, with the words the page uses. */
const CLASS_PARTS = [
  ["readOnly", "read-only"],
  ["idempotent", "idempotent"],
  ["destructive", "destructive (risky)"],
  ["openWorld", "open-world (egress gate)"],
] as const;
type Part = (typeof CLASS_PARTS)[number][0];
type Choice = "" | "yes" | "no";

function classText(c: ServerTool["class"]): string {
  return `${c.readOnly ? "read-only" : c.idempotent ? "side effect (idempotent)" : "side effect"}${c.destructive ? ", destructive (risky)" : ""}${c.openWorld ? ", open-world (egress gate)" : ""}`;
}

/**
 * One tool of a server with its effective class and the admin's override of it: each part "as
 * annotated" (the tool's annotation, or the MCP spec's default) or forced yes / no; "never offer"
 * disables the tool. Saving makes a new server version: tasks launched afterwards get this class.
 */
function McpToolClassRow({ server, tool }: { server: string; tool: ServerTool }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const initial = () =>
    Object.fromEntries(CLASS_PARTS.map(([k]) => [k, tool.override?.[k] === undefined ? "" : tool.override[k] ? "yes" : "no"])) as Record<Part, Choice>;
  const [choices, setChoices] = useState<Record<Part, Choice>>(initial);
  const [disabled, setDisabled] = useState(tool.override?.disabled === true);
  const save = useMutation(
    trpc.mcpServer.setToolOverride.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.mcpServer.pathFilter()) }),
  );
  const override: Record<string, boolean> = {};
  for (const [k] of CLASS_PARTS) if (choices[k]) override[k] = choices[k] === "yes";
  if (disabled) override.disabled = true;
  return (
    <li className="space-y-1" data-mcp-tool={tool.name}>
      <div>
        <code>{tool.name}</code> — <span data-testid="mcp-tool-class">{classText(tool.class)}</span>
        {tool.override && <span className="ml-1 text-amber-700">(overridden)</span>}
        {tool.override?.disabled && <span className="ml-1 text-red-700">never offered</span>}
      </div>
      <form
        className="flex flex-wrap items-center gap-2"
        aria-label={`Class of ${tool.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ name: server, tool: tool.name, override: Object.keys(override).length ? override : null });
        }}
      >
        {CLASS_PARTS.map(([k, label]) => (
          <label key={k} className="flex items-center gap-1">
            {label}
            <select
              aria-label={`${tool.name} ${label}`}
              className="rounded border border-zinc-300 px-1 py-0.5"
              value={choices[k]}
              onChange={(e) => setChoices({ ...choices, [k]: e.target.value as Choice })}
            >
              <option value="">as annotated ({tool.classSource[k] === "default" ? "default" : "annotation"})</option>
              <option value="yes">yes</option>
              <option value="no">no</option>
            </select>
          </label>
        ))}
        <label className="flex items-center gap-1">
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} />
          never offer
        </label>
        <button type="submit" className="rounded border border-zinc-300 px-2 py-0.5" disabled={save.isPending}>
          Save class
        </button>
        {save.error && <span className="text-red-700">{save.error.message}</span>}
        {save.data && <span className="text-zinc-600">{save.data.changed ? `saved: v${save.data.version}, for tasks launched from now on` : "unchanged"}</span>}
      </form>
    </li>
  );
}

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
      {server.tools.length > 0 && (
        <details className="text-xs text-zinc-700">
          <summary className="cursor-pointer">Tools and their classes ({server.tools.length})</summary>
          <ul className="mt-1 space-y-2 pl-2">
            {server.tools.map((t) => (
              <McpToolClassRow key={t.name} server={server.name} tool={t} />
            ))}
          </ul>
        </details>
      )}
      {test.error && <p className="text-xs text-red-700">{test.error.message}</p>}
      {result &&
        (result.ok ? (
          <div className="text-xs text-zinc-700" data-testid="mcp-test-result">
            Started in {result.startMs} ms; {result.tools.length} tools:
            <ul className="mt-1 list-disc pl-5">
              {result.tools.map((t) => (
                <li key={t.name}>
                  <code>{t.qualifiedName}</code> — {classText(t.class)}
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

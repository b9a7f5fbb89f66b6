"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { McpServerRow } from "./mcp/server-row.tsx";
import { SafeText } from "@/components/ui/safe-text.tsx";
import { labelledMessage, type FieldLabels } from "@/components/ui/field-labels.ts";

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

/**
 * Where a refused registration is wrong, named as the JSON the admin wrote names it (the API says
 * `spec.transport.command`; the form's JSON has no `spec`).
 */
const MCP_SPEC_FIELDS: FieldLabels = {
  spec: "The JSON",
  "spec.name": "name",
  "spec.description": "description",
  "spec.transport": "transport",
  "spec.transport.type": "transport.type (stdio or http)",
  "spec.transport.command": "transport.command (the program to start)",
  "spec.transport.args": "transport.args",
  "spec.transport.args.*": "transport.args (an argument)",
  "spec.transport.env": "transport.env",
  "spec.transport.env.*": "transport.env (a variable)",
  "spec.transport.cwd": "transport.cwd",
  "spec.transport.url": "transport.url",
  "spec.transport.headers.*": "transport.headers (a header)",
  "spec.startTimeoutMs": "startTimeoutMs",
  "spec.callTimeoutMs": "callTimeoutMs",
  "spec.tools": "tools",
  "spec.tools.*": "tools (a tool's override)",
};

/** The admin page's "MCP servers" section: the registered servers with their health, Test, Archive, and a JSON form to add or edit one. */
export function McpServersSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const servers = useQuery(trpc.mcpServer.list.queryOptions({ includeArchived: true }));
  const [spec, setSpec] = useState(EXAMPLE);
  const [parseError, setParseError] = useState<string | null>(null);
  // Until React has hydrated, the server-rendered textarea would take typing that hydration then
  // merges with the example: it stays read-only until then.
  const hydrated = useHydrated();
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
            upsert.reset();
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
          readOnly={!hydrated}
          onChange={(e) => setSpec(e.target.value)}
        />
        <button type="submit" className="rounded bg-zinc-900 px-3 py-1 text-sm text-white" disabled={upsert.isPending}>
          Save server
        </button>
        {parseError ? (
          <p className="text-xs text-red-700" role="alert">
            {parseError}
          </p>
        ) : upsert.error ? (
          <p className="text-xs text-red-700" role="alert">
            <SafeText text={labelledMessage(upsert.error.message, MCP_SPEC_FIELDS)} />
          </p>
        ) : null}
        {upsert.data && !parseError && (
          <p className="text-xs text-zinc-600">
            {upsert.data.name}: {upsert.data.created ? "registered" : upsert.data.changed ? `updated to v${upsert.data.version}` : "unchanged"}
          </p>
        )}
      </form>
    </section>
  );
}

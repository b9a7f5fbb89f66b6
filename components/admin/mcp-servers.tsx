"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { McpServerRow } from "./mcp/server-row.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

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
 * Where a refused registration is wrong, in words with the JSON key the admin wrote beside them (the
 * API says `spec.transport.command: Invalid input: expected string, received undefined`; the page
 * says `Command (transport.command): required`).
 */
export const MCP_SPEC_FIELDS: FieldLabels = {
  spec: "The JSON",
  "spec.name": "Name (name)",
  "spec.description": "Description (description)",
  "spec.transport": "Transport (transport)",
  "spec.transport.type": "Transport type (transport.type: stdio or http)",
  "spec.transport.command": "Command (transport.command)",
  "spec.transport.args": "Arguments (transport.args)",
  "spec.transport.args.*": "An argument (transport.args)",
  "spec.transport.env": "Environment (transport.env)",
  "spec.transport.env.*": "An environment variable (transport.env)",
  "spec.transport.env.*.*": "An environment variable (transport.env)",
  "spec.transport.cwd": "Working folder (transport.cwd)",
  "spec.transport.url": "URL (transport.url)",
  "spec.transport.headers": "Headers (transport.headers)",
  "spec.transport.headers.*": "A header (transport.headers)",
  "spec.transport.headers.*.*": "A header (transport.headers)",
  "spec.startTimeoutMs": "Start timeout, ms (startTimeoutMs)",
  "spec.callTimeoutMs": "Call timeout, ms (callTimeoutMs)",
  "spec.tools": "Tool overrides (tools)",
  "spec.tools.*": "A tool's override (tools)",
  "spec.tools.*.*": "A tool's override (tools)",
};

/**
 * The admin page's "MCP servers" section: the registered servers with their health, Test, Edit,
 * Archive and Detach (one managed as code), and a JSON form to add or edit one. The form's line says
 * the last save's outcome; editing the JSON (or loading a server's with Edit) takes a refusal away.
 */
export function McpServersSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const servers = useQuery(trpc.mcpServer.list.queryOptions({ includeArchived: true }));
  const [spec, setSpec] = useState(EXAMPLE);
  const status = useActionStatus(MCP_SPEC_FIELDS);
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
          <McpServerRow
            key={s.id}
            server={s}
            onEdit={(text) => {
              setSpec(text);
              status.edited("spec");
            }}
          />
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
            status.fail({ message: `The JSON: not valid JSON (${(error as Error).message})` });
            return;
          }
          status.start();
          upsert.mutate(
            { spec: parsed },
            {
              onSuccess: (r) => status.done(`${r.name}: ${r.created ? "registered" : r.changed ? `updated to v${r.version}` : "unchanged"}`),
              onError: status.fail,
            },
          );
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
          onChange={(e) => {
            setSpec(e.target.value);
            status.edited("spec");
          }}
        />
        <button type="submit" className="rounded bg-zinc-900 px-3 py-1 text-sm text-white" disabled={upsert.isPending}>
          Save server
        </button>
        <StatusLine line={status.line} className="text-xs" testId="mcp-save" />
      </form>
    </section>
  );
}

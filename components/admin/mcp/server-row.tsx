"use client";

import { describeCodeSource } from "@/lib/contracts/code-managed.ts";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import type { AppRouter } from "@/server/api/root.ts";
import { toolClassWords } from "@/lib/contracts/mcp.ts";
import { McpToolClassRow } from "./tool-class-row.tsx";

type Server = inferRouterOutputs<AppRouter>["mcpServer"]["list"][number];
type TestResult = inferRouterOutputs<AppRouter>["mcpServer"]["test"];

function transportText(server: Server): string {
  const t = server.spec.transport;
  return t.type === "stdio" ? `stdio: ${[t.command, ...t.args].join(" ")}` : `http: ${t.url}`;
}

/** A health time in the app's one timestamp format, or "never". */
function When({ date }: { date: Date | string | null }) {
  return date ? <Timestamp className="font-mono" date={new Date(date)} /> : <>never</>;
}

/** One registered server: its transport, version, health, and Test / Archive. */
export function McpServerRow({ server, onEdit }: { server: Server; onEdit: (spec: string) => void }) {
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
      {server.managedAs && (
        <p className="text-xs text-sky-900" data-testid="mcp-managed-as-code">
          Managed as code ({describeCodeSource(server.managedAs.source)}): change it there, tool overrides included; an update or override here is refused.
        </p>
      )}
      <p className="text-xs text-zinc-600" data-testid="mcp-health">
        Last started <When date={h.lastStartedAt} />
        {server.spec.transport.type === "stdio" ? (h.lastPid ? ` · running, pid ${h.lastPid}` : h.lastStartedAt ? " · not running" : "") : ""}
        {info?.name ? ` · ${info.name} ${info.version ?? ""}` : ""}
        {toolCount !== null ? ` · ${toolCount} tools` : ""}
        {` · ${h.restarts} restart${h.restarts === 1 ? "" : "s"}`}
      </p>
      {h.lastExitAt && (
        <p className="text-xs text-amber-800" data-testid="mcp-last-exit">
          Last unexpected exit <When date={h.lastExitAt} />: {h.lastExitSignal ? `signal ${h.lastExitSignal}` : `exit code ${h.lastExitCode ?? "unknown"}`}
        </p>
      )}
      {h.lastError && (
        <p className="text-xs text-red-700" data-testid="mcp-last-error">
          Last error (<When date={h.lastErrorAt} />
          ): {h.lastError}
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
                  <code>{t.qualifiedName}</code> — {toolClassWords(t.class)}
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

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
import { ManagedAsCode } from "../detach-from-code.tsx";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";

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

/**
 * One registered server: its transport, version, health, and Test / Edit / Archive. One managed as
 * code says where from and offers "Detach from file…" (confirmed) instead of Edit and the tool
 * overrides, which its file holds; detached, the row is editable. The row's line says its last
 * action's outcome.
 */
export function McpServerRow({ server, onEdit }: { server: Server; onEdit: (spec: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries(trpc.mcpServer.pathFilter());
  const [result, setResult] = useState<TestResult | null>(null);
  const test = useMutation(trpc.mcpServer.test.mutationOptions({ onSuccess: (r) => (setResult(r), refresh()) }));
  const archive = useMutation(trpc.mcpServer.archive.mutationOptions({ onSuccess: refresh }));
  const detach = useMutation(trpc.mcpServer.detach.mutationOptions({ onSuccess: refresh }));
  const status = useActionStatus({ name: null });
  /** A row action starts: its line and the last test's result go. */
  const starting = () => {
    status.start();
    setResult(null);
  };
  const managed = server.managedAs !== null;
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
        <ManagedAsCode
          testId="mcp-managed-as-code"
          kind="MCP server"
          name={server.name}
          source={server.managedAs.source}
          pending={detach.isPending}
          copyHint="To keep a changed copy, register it under another name."
          onDetach={() => {
            starting();
            detach.mutate({ name: server.name }, { onError: status.fail });
          }}
        >
          Managed as code ({describeCodeSource(server.managedAs.source)}): change it there, tool overrides included; an edit here would differ from it.
        </ManagedAsCode>
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
          onClick={() => {
            starting();
            test.mutate({ name: server.name }, { onError: status.fail });
          }}
        >
          {test.isPending ? "Testing…" : "Test"}
        </button>
        <button
          type="button"
          className="rounded border border-zinc-300 px-2 py-1 text-xs disabled:opacity-50"
          disabled={managed}
          title={managed ? "Managed as code: change the file and apply it, or detach it first" : "Put its JSON in the form below"}
          onClick={() => onEdit(JSON.stringify(server.spec, null, 2))}
        >
          Edit
        </button>
        {!server.archivedAt && (
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-1 text-xs"
            onClick={() => {
              starting();
              archive.mutate({ name: server.name }, { onError: status.fail });
            }}
          >
            Archive
          </button>
        )}
      </div>
      {server.tools.length > 0 && (
        <details className="text-xs text-zinc-700">
          <summary className="cursor-pointer">Tools and their classes ({server.tools.length})</summary>
          <ul className="mt-1 space-y-2 pl-2">
            {server.tools.map((t) => (
              <McpToolClassRow key={t.name} server={server.name} tool={t} managed={managed} />
            ))}
          </ul>
        </details>
      )}
      <StatusLine line={status.line} className="text-xs" testId="mcp-row" />
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

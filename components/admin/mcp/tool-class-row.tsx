"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { toolClassWords } from "@/lib/contracts/mcp.ts";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { StatusLine, useActionStatus } from "@/components/ui/use-action-status.tsx";
import type { AppRouter } from "@/server/api/root.ts";

type Server = inferRouterOutputs<AppRouter>["mcpServer"]["list"][number];
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

/** The override's fields as the API names them, in the row's words. */
const OVERRIDE_FIELDS: FieldLabels = {
  name: null,
  tool: null,
  override: "Class",
  "override.readOnly": "read-only",
  "override.idempotent": "idempotent",
  "override.destructive": "destructive",
  "override.openWorld": "open-world",
  "override.disabled": "never offer",
};

/**
 * One tool of a server with its effective class and the admin's override of it: each part "as
 * annotated" (the tool's annotation, or the MCP spec's default) or forced yes / no; "never offer"
 * disables the tool. Saving makes a new server version: tasks launched afterwards get this class.
 * Off while the server is `managed` as code (its file holds the overrides).
 */
export function McpToolClassRow({ server, tool, managed }: { server: string; tool: ServerTool; managed: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const initial = () =>
    Object.fromEntries(CLASS_PARTS.map(([k]) => [k, tool.override?.[k] === undefined ? "" : tool.override[k] ? "yes" : "no"])) as Record<Part, Choice>;
  const [choices, setChoices] = useState<Record<Part, Choice>>(initial);
  const [disabled, setDisabled] = useState(tool.override?.disabled === true);
  const save = useMutation(
    trpc.mcpServer.setToolOverride.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries(trpc.mcpServer.pathFilter()) }),
  );
  const status = useActionStatus(OVERRIDE_FIELDS);
  const override: Record<string, boolean> = {};
  for (const [k] of CLASS_PARTS) if (choices[k]) override[k] = choices[k] === "yes";
  if (disabled) override.disabled = true;
  return (
    <li className="space-y-1" data-mcp-tool={tool.name}>
      <div>
        <code>{tool.name}</code> — <span data-testid="mcp-tool-class">{toolClassWords(tool.class)}</span>
        {tool.override && <span className="ml-1 text-amber-700">(overridden)</span>}
        {tool.override?.disabled && <span className="ml-1 text-red-700">never offered</span>}
      </div>
      <form
        className="flex flex-wrap items-center gap-2"
        aria-label={`Class of ${tool.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          status.start();
          save.mutate(
            { name: server, tool: tool.name, override: Object.keys(override).length ? override : null },
            {
              onSuccess: (r) => status.done(r.changed ? `saved: v${r.version}, for tasks launched from now on` : "unchanged"),
              onError: status.fail,
            },
          );
        }}
      >
        {CLASS_PARTS.map(([k, label]) => (
          <label key={k} className="flex items-center gap-1">
            {label}
            <select
              aria-label={`${tool.name} ${label}`}
              className="rounded border border-zinc-300 px-1 py-0.5"
              value={choices[k]}
              onChange={(e) => {
                setChoices({ ...choices, [k]: e.target.value as Choice });
                status.edited(`override.${k}`);
              }}
            >
              <option value="">as annotated ({tool.classSource[k] === "default" ? "default" : "annotation"})</option>
              <option value="yes">yes</option>
              <option value="no">no</option>
            </select>
          </label>
        ))}
        <label className="flex items-center gap-1">
          <input
            type="checkbox"
            checked={disabled}
            onChange={(e) => {
              setDisabled(e.target.checked);
              status.edited("override.disabled");
            }}
          />
          never offer
        </label>
        <button
          type="submit"
          className="rounded border border-zinc-300 px-2 py-0.5 disabled:opacity-50"
          disabled={save.isPending || managed}
          title={managed ? "Managed as code: its file holds the tool overrides; detach it first" : undefined}
        >
          Save class
        </button>
        <StatusLine line={status.line} className="text-xs" />
      </form>
    </li>
  );
}

"use client";

import { useState } from "react";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { cn } from "@/components/ui/cn.ts";
import { formatAbsolute, useTimeZone } from "@/components/ui/timestamp.tsx";
import { dueWords, waitTimeoutWords } from "@/lib/contracts/escalation-timeout.ts";
import type { RunTask } from "./use-run-queries.ts";
import { SafeText, safeAttr } from "@/components/ui/safe-text.tsx";

/**
 * One banner per open escalation: why it waits, what happens when the wait times out (reminders,
 * the role they go to, when no more reminders follow), its due time (overdue), and Decide for a handler (else who decides it).
 */
export function EscalationBanners({ task }: { task: RunTask }) {
  const me = useMe().data;
  const zone = useTimeZone();
  return task.escalations
    .filter((e) => e.status === "open")
    .map((e) => (
      <div
        key={e.id}
        role="alert"
        className="mt-3 flex flex-wrap items-center justify-between gap-2 rounded-md border border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950"
        data-testid="escalation-banner"
      >
        <span className="min-w-0 flex-1 [overflow-wrap:anywhere]">
          <span className="font-semibold">Waiting on a human ({e.reason.replace("_", " ")}):</span> <SafeText text={e.message} multiline />
          <span className={cn("mt-0.5 block text-xs", e.overdue ? "font-semibold text-red-800" : "text-amber-900")} data-testid="wait-due">
            {e.overdue ? "⚠ " : ""}
            {dueWords(e, (d) => formatAbsolute(d, zone))}
          </span>
          {e.timeout && (
            <span className="mt-0.5 block text-xs text-amber-900" data-testid="wait-timeout">
              {waitTimeoutWords(e.timeout, e.assigneeRole, (d) => formatAbsolute(d, zone))}
            </span>
          )}
        </span>
        {holdsAny(me?.roles, ["handler"]) ? (
          <a className="shrink-0 rounded-md bg-amber-600 px-3 py-1 font-medium text-white" href={`/escalations?id=${e.id}`}>
            Decide
          </a>
        ) : (
          <span className="shrink-0 text-xs text-amber-900" data-testid="decide-refused">
            A handler decides it (deciding needs the handler role).
          </span>
        )}
      </div>
    ));
}

type RunAlert = RunTask["alerts"][number];

/** What an alert's detail says, in words (tools added / removed / changed; a server's exit). */
function AlertDetailText({ alert }: { alert: RunAlert }) {
  const d = alert.detail;
  if (!d) return <SafeText text={alert.message} multiline />;
  if (d.kind === "mcp_tools_changed") {
    const list = (names: string[]) =>
      names.length
        ? names.map((n) => (
            <code key={n} className="mr-1">
              <SafeText text={n} />
            </code>
          ))
        : "none";
    return (
      <>
        MCP server{" "}
        <code>
          <SafeText text={d.server} />
        </code>{" "}
        lists other tools than when this task launched; this run keeps the tools it was offered.
        <span className="mt-1 block" data-testid="tools-added">
          Added: {list(d.added)}
        </span>
        <span className="block" data-testid="tools-removed">
          Removed: {list(d.removed)}
        </span>
        <span className="block" data-testid="tools-changed">
          Changed:{" "}
          {d.changed.length
            ? d.changed.map((c) => (
                <span key={c.tool} className="mr-2">
                  <code>
                    <SafeText text={c.tool} />
                  </code>{" "}
                  ({c.fields.join(", ")})
                </span>
              ))
            : "none"}
        </span>
      </>
    );
  }
  return <SafeText text={alert.message} multiline />;
}

/**
 * The latest six alerts as buttons: one raised on a step of the timeline opens that step; one that
 * is not (raised at a segment's start, like a changed MCP tool list) opens its own detail here.
 */
export function AlertsLine({ task, onSelectStep }: { task: RunTask; onSelectStep: (key: string) => void }) {
  const [open, setOpen] = useState<string | null>(null);
  if (task.alerts.length === 0) return null;
  const shown = task.alerts.find((a) => a.id === open);
  return (
    <div className="mt-2 text-xs text-zinc-600" data-testid="alerts-line">
      <p>
        Alerts:{" "}
        {task.alerts.slice(-6).map((a) => (
          <button
            key={a.id}
            type="button"
            className={cn("mr-1 rounded px-1.5 py-0.5", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}
            title={safeAttr(a.message, { newlines: true })}
            aria-expanded={a.onTimeline ? undefined : open === a.id}
            onClick={() => (a.onTimeline ? onSelectStep(`${a.runId}:${a.stepId}`) : setOpen(open === a.id ? null : a.id))}
          >
            {a.kind} · {a.stepId}
          </button>
        ))}
      </p>
      {shown && (
        <div className="mt-1 rounded border border-amber-200 bg-amber-50 px-3 py-2 text-amber-950 [overflow-wrap:anywhere]" data-testid="alert-detail">
          <AlertDetailText alert={shown} />
        </div>
      )}
    </div>
  );
}

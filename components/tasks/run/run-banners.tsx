"use client";

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

/** The latest six alerts as buttons that open their step. */
export function AlertsLine({ task, onSelectStep }: { task: RunTask; onSelectStep: (key: string) => void }) {
  if (task.alerts.length === 0) return null;
  return (
    <p className="mt-2 text-xs text-zinc-600" data-testid="alerts-line">
      Alerts:{" "}
      {task.alerts.slice(-6).map((a) => (
        <button
          key={a.id}
          type="button"
          className={cn("mr-1 rounded px-1.5 py-0.5", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}
          title={safeAttr(a.message, { newlines: true })}
          onClick={() => onSelectStep(`${a.runId}:${a.stepId}`)}
        >
          {a.kind} · {a.stepId}
        </button>
      ))}
    </p>
  );
}

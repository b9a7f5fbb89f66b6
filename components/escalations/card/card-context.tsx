"use client";

import { cn } from "@/components/ui/cn.ts";
import { Timestamp } from "@/components/ui/timestamp.tsx";
import type { EscalationCard } from "./use-decision-form.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

const heading = "mb-1 text-xs font-medium tracking-wide text-zinc-500 uppercase";

/** What led here: the open question, the last steps, the facts changed since the previous checkpoint, the alerts, earlier undos. */
export function CardContext({ e }: { e: EscalationCard }) {
  return (
    <>
      {e.checkpoint?.openQuestion && (
        <p className="rounded bg-zinc-50 p-3 text-sm [overflow-wrap:anywhere]">
          <span className="font-medium">Open question:</span> <SafeText text={e.checkpoint.openQuestion} multiline />
        </p>
      )}
      <div>
        <h3 className={heading}>Last steps</h3>
        <ol className="space-y-1 font-mono text-xs [overflow-wrap:anywhere]">
          {e.lastSteps.map((s) => (
            <li key={s.stepId} className={cn(s.status === "failed" && "text-red-700")}>
              {s.stepId} <SafeText text={s.summary || s.tool || s.kind} />
            </li>
          ))}
        </ol>
      </div>
      <div>
        <h3 className={heading}>Facts changed since the previous checkpoint</h3>
        {e.factDiff.length === 0 ? (
          <p className="text-xs text-zinc-500">None.</p>
        ) : (
          <ul className="max-h-40 overflow-auto font-mono text-xs [overflow-wrap:anywhere]">
            {e.factDiff.map((c) => (
              <li key={c.key}>
                {c.kind === "added" ? "+" : c.kind === "removed" ? "−" : "~"}{" "}
                <SafeText text={`${c.key}: ${JSON.stringify(c.kind === "removed" ? c.before : c.after).slice(0, 120)}`} />
              </li>
            ))}
          </ul>
        )}
      </div>
      {e.alerts.length > 0 && (
        <div>
          <h3 className={heading}>Alerts</h3>
          <ul className="space-y-1 text-xs [overflow-wrap:anywhere]">
            {e.alerts.slice(0, 8).map((a, i) => (
              <li key={i}>
                <span className={cn("mr-1 rounded px-1", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}>{a.kind}</span>
                <SafeText text={a.message} /> <span className="text-zinc-500">({a.stepId})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {e.undos.length > 0 && (
        <ul className="space-y-0.5 text-xs text-zinc-500" data-testid="undos">
          {e.undos.map((u, i) => (
            <li key={i}>
              Undone: {u.decision.replace("_", " ")} by <SafeText text={u.decidedBy ?? "someone"} />, taken back by <SafeText text={u.undoneBy} />
              {u.undoneAt ? (
                <>
                  {" "}
                  at <Timestamp date={u.undoneAt} />
                </>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

"use client";

import { ago } from "@/components/tasks/format.ts";
import { exactTitle, Timestamp } from "@/components/ui/timestamp.tsx";
import type { EscalationCard } from "./use-decision-form.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/**
 * Why the buttons are off on an escalation that is no longer open: who decided what, when, with
 * which guidance or reason, whether it has been applied (and a new run started).
 */
export function DecidedNote({ e, mine, waiting, left }: { e: EscalationCard; mine: boolean; waiting: boolean; left: number }) {
  return (
    <p id="decided-note" className="rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm [overflow-wrap:anywhere]" data-testid="decided">
      {e.decision ? <SafeText text={`${e.decision.replace("_", " ")} by ${e.decidedBy ?? "someone"}`} /> : e.status}
      {e.decidedAt ? <span title={exactTitle(e.decidedAt)}> {ago(e.decidedAt)}</span> : ""}
      {e.guidance ? (
        <>
          {" — “"}
          <SafeText text={e.guidance} multiline />”
        </>
      ) : null}
      {e.deadEndReason ? (
        <>
          {" — “"}
          <SafeText text={e.deadEndReason} multiline />”
        </>
      ) : null}
      {e.status === "applied" ? (
        <>
          {" · applied "}
          {e.appliedAt ? <Timestamp date={e.appliedAt} /> : null}
        </>
      ) : e.status === "applying" ? (
        " · being applied"
      ) : waiting ? (
        ` · applies in ${left} s`
      ) : (
        " · being applied"
      )}
      {e.resultRunId ? " · a new run started" : ""}.{" "}
      {e.status === "decided" && mine
        ? "The buttons are off until you undo it."
        : `The buttons are off because this escalation was already decided${mine ? "" : " by someone else"}.`}
    </p>
  );
}

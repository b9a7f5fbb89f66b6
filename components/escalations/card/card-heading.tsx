"use client";

import Link from "next/link";
import { ago } from "@/components/tasks/format.ts";
import { formatAbsolute, Timestamp, useTimeZone } from "@/components/ui/timestamp.tsx";
import { dueWords, waitTimeoutWords } from "@/lib/contracts/escalation-timeout.ts";
import { REASONS } from "./reasons.ts";
import type { EscalationCard } from "./use-decision-form.ts";
import { assigneeWords } from "@/lib/contracts/escalation.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** The card's heading: the reason (and overdue, escalationClock's figures as every page shows them), the message, the task's goal as a link, then profile, when it opened and is due (absolute times in the one format, components/ui/timestamp.tsx) and the role or person it is escalated to (assigneeWords: "role handler", or a name from the chain); while open, what happens when the wait times out. */
export function CardHeading({ e }: { e: EscalationCard }) {
  const zone = useTimeZone();
  return (
    <div>
      <div className="flex flex-wrap items-center gap-2 text-xs tracking-wide text-zinc-500 uppercase">
        {REASONS[e.reason] ?? e.reason}
        {e.overdue && (
          <span className="rounded bg-red-100 px-1.5 py-0.5 font-semibold text-red-800 normal-case">⚠ {dueWords(e, (d) => formatAbsolute(d, zone))}</span>
        )}
      </div>
      <h2 className="mt-1 text-lg font-semibold [overflow-wrap:anywhere]">
        <SafeText text={e.message} multiline />
      </h2>
      <p className="mt-1 text-sm text-zinc-600 [overflow-wrap:anywhere]">
        <Link className="underline" href={`/tasks/${e.taskId}`} dir="auto">
          <SafeText text={e.goal.slice(0, 160)} />
        </Link>
      </p>
      <p className="mt-1 text-xs text-zinc-500">
        <SafeText text={e.profile.name} /> · opened <Timestamp date={e.createdAt} /> ({ago(e.createdAt)}) · due <Timestamp date={e.dueAt} /> · escalated to{" "}
        <SafeText text={assigneeWords(e.assigneeRole)} />
      </p>
      {e.timeout && (
        <p className="mt-1 text-xs text-zinc-600" data-testid="card-wait-timeout">
          {waitTimeoutWords(e.timeout, e.assigneeRole, (d) => formatAbsolute(d, zone))}
        </p>
      )}
    </div>
  );
}

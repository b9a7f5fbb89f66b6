"use client";

import { formText } from "@/components/auth/form-value.ts";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** The audit log's filter: who and action (substrings), task id (exact). */
type AuditFilter = { actor?: string; action?: string; taskId?: string };

/** The audit log's filter form; Filter applies it (empty fields: no filter on them). */
function AuditFilterForm({ onFilter }: { onFilter: (filter: AuditFilter) => void }) {
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const pick = (k: string) => formText(form, k).trim() || undefined;
    onFilter({ actor: pick("actor"), action: pick("action"), taskId: pick("taskId") });
  };
  return (
    <form className="flex flex-wrap items-end gap-3 text-sm" onSubmit={submit}>
      <label>
        Who <input name="actor" className="rounded border border-zinc-300 px-2 py-1" />
      </label>
      <label>
        Action <input name="action" placeholder="escalation." className="rounded border border-zinc-300 px-2 py-1" />
      </label>
      <label>
        Task <input name="taskId" placeholder="task_…" className="rounded border border-zinc-300 px-2 py-1" />
      </label>
      <button type="submit" className="rounded border border-zinc-300 px-3 py-1.5">
        Filter
      </button>
    </form>
  );
}

/**
 * /admin → Audit log: human actions, newest first (at most 200), with who, what, on which task,
 * whom or what else it acted on (a user by name and email), and the redacted input; filtered by
 * who, action (substrings) and task.
 */
export function AuditSection() {
  const trpc = useTRPC();
  const [filter, setFilter] = useState<AuditFilter>({});
  const audit = useQuery(trpc.admin.audit.queryOptions({ ...filter, limit: 200 }));
  return (
    <section className="space-y-3" aria-label="Audit log">
      <h2 className="text-lg font-semibold">Audit log</h2>
      <AuditFilterForm onFilter={setFilter} />
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm [&_td]:pr-3 [&_th]:pr-3" data-testid="audit-log">
          <thead className="text-xs text-zinc-500">
            <tr>
              <th>When (UTC)</th>
              <th>Who</th>
              <th>What</th>
              <th>Task</th>
              <th>On</th>
              <th>Details</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.events.map((e) => (
              <tr key={e.id} className="border-t border-zinc-200 align-top" data-testid="audit-row" data-action={e.action}>
                <td className="whitespace-nowrap">{e.at.toISOString().slice(0, 19).replace("T", " ")}</td>
                <td className="max-w-[16rem] [overflow-wrap:anywhere]">
                  <SafeText text={e.actor} />
                  {e.via.startsWith("token:") ? (
                    <span className="text-zinc-500"> (token)</span>
                  ) : e.via === "sign-up" ? (
                    <span className="text-zinc-500"> (at sign-up)</span>
                  ) : null}
                </td>
                <td className="font-mono">{e.action}</td>
                <td>
                  {e.taskId ? (
                    <Link className="underline" href={`/tasks/${e.taskId}`}>
                      {e.taskId}
                    </Link>
                  ) : (
                    "—"
                  )}
                </td>
                <td className="break-all" data-testid="audit-target">
                  {e.target ?? "—"}
                </td>
                <td className="max-w-md truncate font-mono text-xs" title={JSON.stringify(e.details)}>
                  {JSON.stringify(e.details)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {audit.data?.events.length === 0 && <p className="text-sm text-zinc-500">No action matches.</p>}
    </section>
  );
}

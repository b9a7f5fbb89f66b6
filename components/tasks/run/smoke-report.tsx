"use client";

import { cn } from "@/components/ui/cn.ts";
import type { RunTask } from "./use-run-queries.ts";

type Smoke = NonNullable<RunTask["smoke"]>;

const OUTCOME_STYLE: Record<Smoke["tools"][number]["outcome"], string> = {
  called: "bg-emerald-100 text-emerald-900",
  error: "bg-red-100 text-red-800",
  refused: "bg-amber-100 text-amber-900",
  skipped: "bg-zinc-100 text-zinc-700",
  not_called: "bg-zinc-100 text-zinc-700",
};

/** A tool's class in words. */
function classWords(c: Smoke["tools"][number]["class"]): string {
  const parts = [c.readOnly ? "read-only" : c.idempotent ? "side effect (idempotent)" : "side effect"];
  if (c.destructive) parts.push("destructive");
  if (c.openWorld) parts.push("open-world");
  return parts.join(", ");
}

/**
 * A profile smoke test's result on its task page: which model ran it (the offline smoke model, not
 * the profile's own), and per tool its outcome (called · error · refused · skipped · not called),
 * class, latency and detail; a called tool's name opens its step.
 */
export function SmokeReport({ smoke, onSelectStep }: { smoke: Smoke; onSelectStep: (key: string) => void }) {
  return (
    <section className="mt-3 rounded border border-zinc-200 p-3 text-sm" data-testid="smoke-report" aria-label="Smoke test">
      <p className="text-xs text-zinc-600">
        Smoke test on the offline model <code>{smoke.model}</code> (the profile's own model <code>{smoke.profileModel}</code> is not called);{" "}
        {smoke.includeSideEffects ? "side effects and open-world tools included" : "read-only tools only"}.
      </p>
      <table className="mt-2 w-full text-left text-xs">
        <thead className="text-zinc-500">
          <tr>
            <th className="py-1 pr-2 font-normal">Outcome</th>
            <th className="py-1 pr-2 font-normal">Tool</th>
            <th className="py-1 pr-2 font-normal">Class</th>
            <th className="py-1 pr-2 text-right font-normal">Latency</th>
            <th className="py-1 font-normal">Detail</th>
          </tr>
        </thead>
        <tbody>
          {smoke.tools.map((t) => (
            <tr key={t.name} className="border-t border-zinc-100 align-top" data-smoke-tool={t.name}>
              <td className="py-1 pr-2">
                <span className={cn("rounded px-1.5 py-0.5", OUTCOME_STYLE[t.outcome])}>{t.outcome.replace("_", " ")}</span>
              </td>
              <td className="py-1 pr-2 font-mono [overflow-wrap:anywhere]">
                {t.runId && t.stepId ? (
                  <button type="button" className="text-left underline" onClick={() => onSelectStep(`${t.runId}:${t.stepId}`)}>
                    {t.name}
                  </button>
                ) : (
                  t.name
                )}
              </td>
              <td className="py-1 pr-2">{classWords(t.class)}</td>
              <td className="py-1 pr-2 text-right tabular-nums">{t.latencyMs === null ? "—" : `${t.latencyMs} ms`}</td>
              <td className="py-1 text-zinc-600 [overflow-wrap:anywhere]">{t.detail ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

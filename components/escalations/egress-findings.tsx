"use client";

import type { inferRouterOutputs } from "@trpc/server";
import type { ReactNode } from "react";
import type { AppRouter } from "@/server/api/root.ts";

type ProposedCall = NonNullable<inferRouterOutputs<AppRouter>["escalation"]["get"]["proposedCall"]>;
type EgressEvidence = NonNullable<ProposedCall["egress"]>;

/** The marker the egress gate leaves where it cut a finding out of an argument (server/tools/egress-scan.ts redactText). */
const MARKER = /\[redacted(?: key)?(?::[^\]]*)?\]/g;

/** Every leaf of a JSON value with its field path, as the egress gate names fields ("body", "body.items[2].text"). */
function leaves(value: unknown, path = ""): { field: string; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (value && typeof value === "object") return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  return [{ field: path || "arguments", value }];
}

/** `text` with each redaction marker highlighted (the finding it stands for as its title). */
function markRedactions(text: string, field: string, evidence: EgressEvidence): ReactNode[] {
  const out: ReactNode[] = [];
  let at = 0;
  for (const m of text.matchAll(MARKER)) {
    out.push(text.slice(at, m.index));
    const finding = evidence.findings.find((f) => f.field === field && m[0].includes(f.label));
    out.push(
      <mark
        key={`${field}:${m.index}`}
        className="rounded bg-red-200 px-0.5 font-semibold text-red-950"
        data-testid="finding-mark"
        title={
          finding ? `${finding.kind === "secret" ? "secret" : "copied file content"}: ${finding.label} (${finding.preview})` : "redacted by the egress gate"
        }
      >
        {m[0]}
      </mark>,
    );
    at = m.index + m[0].length;
  }
  out.push(text.slice(at));
  return out;
}

/**
 * The proposed call's arguments, field by field, with what the egress gate found highlighted in
 * place: a destination outside the policy (the field marked with its reason) and each redacted
 * secret or copied file passage (`[redacted: …]` markers, their finding as the tooltip).
 */
export function HighlightedArguments({ args, evidence }: { args: Record<string, unknown>; evidence: EgressEvidence }) {
  return (
    <dl className="space-y-1 rounded border border-zinc-200 bg-white p-2 font-mono text-xs" data-testid="highlighted-arguments">
      {leaves(args).map(({ field, value }) => {
        const breach = evidence.breaches.find((b) => b.field === field || field.startsWith(`${b.field}[`));
        const text = typeof value === "string" ? value : JSON.stringify(value);
        return (
          <div key={field} className="flex gap-2" data-field={field}>
            <dt className="shrink-0 text-zinc-500">{field}:</dt>
            <dd className="min-w-0 break-words whitespace-pre-wrap [overflow-wrap:anywhere]">
              {breach ? (
                <mark
                  className="rounded bg-amber-200 px-0.5 font-semibold text-amber-950"
                  data-testid="breach-mark"
                  title={`${breach.reason} (${breach.rule})`}
                >
                  {text}
                </mark>
              ) : typeof value === "string" ? (
                markRedactions(text, field, evidence)
              ) : (
                text
              )}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/**
 * What the egress gate found, one line each, in plain words: a destination outside the policy with
 * the reason and the allow-list; a secret with the rule that matched and its value redacted; a
 * verbatim copy of a workspace file with the file, the size and the copied excerpt (secrets in it
 * redacted). Listed once: neither the heading above the list nor the card's headline repeats them.
 * Nothing here shows a secret: the evidence never holds one.
 */
export function EgressFindings({ evidence }: { evidence: EgressEvidence }) {
  // Each finding once, in the list; the heading only counts them (the card's headline names the call).
  const count = evidence.breaches.length + evidence.findings.length;
  return (
    <div className="space-y-2" data-testid="egress-findings">
      <p className="text-sm font-semibold text-red-900">
        Stopped by the egress gate: {count} finding{count === 1 ? "" : "s"}
      </p>
      <ul className="space-y-1.5 text-sm">
        {evidence.breaches.map((b) => (
          <li
            key={`b:${b.field}:${b.destination}`}
            className="rounded border border-amber-300 bg-amber-50 px-2 py-1"
            data-testid="egress-finding"
            data-kind={b.kind}
          >
            <span className="font-semibold">{b.reason}</span>: <code className="font-mono">{b.destination}</code> in{" "}
            <code className="font-mono">{b.field}</code> <span className="text-zinc-600">({b.rule})</span>
          </li>
        ))}
        {evidence.findings.map((f, i) => (
          <li key={`f:${f.field}:${i}`} className="rounded border border-red-300 bg-red-50 px-2 py-1" data-testid="egress-finding" data-kind={f.kind}>
            {f.kind === "secret" ? (
              <>
                <span className="font-semibold">secret in {f.field}</span>: {f.label} — matched by rule <code className="font-mono text-xs">{f.rule}</code>,
                value <code className="font-mono">{f.preview}</code> (redacted)
              </>
            ) : (
              <>
                <span className="font-semibold">copied from a workspace file in {f.field}</span>: {f.label} — {f.preview}
                {f.excerpt && (
                  <blockquote className="mt-1 border-l-4 border-red-300 bg-white px-2 py-1 font-mono text-xs whitespace-pre-wrap" data-testid="egress-excerpt">
                    {f.excerpt}
                  </blockquote>
                )}
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

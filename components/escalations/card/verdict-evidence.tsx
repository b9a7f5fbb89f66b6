"use client";

import { JsonView } from "@/components/ui/json-view.tsx";
import { EgressFindings, HighlightedArguments } from "../egress-findings.tsx";
import type { EscalationCard } from "./use-decision-form.ts";

/** A risky action's proposed call: the tool, what Approve and Reject do, the egress findings once, and the arguments. */
export function ProposedCall({ call }: { call: NonNullable<EscalationCard["proposedCall"]> }) {
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50/40 p-3" data-testid="proposed-call">
      <div className="mb-2 text-sm">
        The agent wants to call <code className="rounded bg-white px-1 font-mono font-semibold">{call.tool}</code>. Approve lets that very call run (recognised
        by its fingerprint); Reject tells the agent not to.
      </div>
      {call.egress ? (
        <div className="space-y-2">
          <EgressFindings evidence={call.egress} />
          <div className="text-xs font-medium tracking-wide text-zinc-500 uppercase">Arguments (findings highlighted, secrets redacted)</div>
          <HighlightedArguments args={call.arguments} evidence={call.egress} />
        </div>
      ) : (
        <JsonView value={call.arguments} label="Arguments" />
      )}
    </div>
  );
}

/** An unknown outcome: which call, why it is unknown, its idempotency key and arguments — check the external system. */
export function UnresolvedEffect({ effect }: { effect: EscalationCard["unresolvedEffect"] }) {
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50/40 p-3" data-testid="unresolved-effect">
      <p className="mb-2 text-sm">
        The outcome of <code className="rounded bg-white px-1 font-mono font-semibold">{effect?.tool ?? "the call"}</code> is unknown: the process stopped after
        the request was sent and before its answer was recorded. <strong>Check the external system.</strong>
      </p>
      {effect && (
        <>
          <p className="mb-1 text-xs break-all text-zinc-600">
            Idempotency key <code className="font-mono">{effect.idempotencyKey ?? "unknown"}</code> · step <code className="font-mono">{effect.stepId}</code>
          </p>
          <JsonView value={effect.arguments} label={`Arguments of ${effect.tool}`} />
        </>
      )}
    </div>
  );
}

"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState, type RefObject } from "react";
import { ago, compactNumber, usd } from "@/components/tasks/format.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { cn } from "@/components/ui/cn.ts";
import { JsonView } from "@/components/ui/json-view.tsx";
import { DECIDED_VERB, secondsLeft, useNow } from "./countdown.ts";
import { EgressFindings, HighlightedArguments } from "./egress-findings.tsx";
import { FactEditor, parseFactDrafts, type FactDrafts } from "./fact-editor.tsx";
import { describeCeilingUsage as describeCeiling } from "@/lib/contracts/ceiling.ts";
import { MAX_EXTRA, type EscalationDecision } from "@/lib/contracts/escalation.ts";

/** Undo window the inbox gives every decision (seconds). */
export const UI_UNDO_SECONDS = 10;

/** What each escalation reason means, for the card's header (every reason the agent loop opens). */
export const REASONS: Record<string, string> = {
  loop: "Loop: the same tool call with identical arguments, again",
  stall: "Stall: no new fact for several steps",
  budget: "Budget ceiling reached",
  saturation: "Context saturated and compaction cannot make room",
  tool_failure: "A tool keeps failing",
  request_human: "The agent asks for a decision",
  risky_action: "Approval needed: a risky action",
  unresolved_effect: "Unknown outcome: an external call may or may not have happened",
  manual: "Escalated by an operator",
};

/** Short reason words for lists ("unresolved effect" → "unknown outcome"). */
export const REASON_SHORT: Record<string, string> = {
  budget: "budget ceiling",
  tool_failure: "tool failure",
  request_human: "question",
  risky_action: "approval",
  unresolved_effect: "unknown outcome",
};

/**
 * A typed budget raise: undefined when empty, else the number, or the error naming the field and
 * its limits (steps and tokens whole numbers from 0; dollars more than 0).
 */
export function parseExtra(kind: "steps" | "tokens" | "usd", text: string): { value?: number; error?: string } {
  const t = text.trim();
  if (t === "") return {};
  const n = Number(t);
  if (kind === "usd") {
    return Number.isFinite(n) && n > 0 && n <= MAX_EXTRA.usd ? { value: n } : { error: `Extra dollars: more than 0 and at most ${MAX_EXTRA.usd}` };
  }
  const label = kind === "steps" ? "Extra steps" : "Extra tokens";
  return Number.isInteger(n) && n >= 0 && n <= MAX_EXTRA[kind] ? { value: n } : { error: `${label}: a whole number from 0 to ${MAX_EXTRA[kind]}` };
}

type Decision = EscalationDecision;

const absolute = (d: Date) => d.toLocaleString("en-GB", { hour12: false, timeZoneName: "short" });

/**
 * The context card of one escalation: what stopped the run and why (evidence, the proposed call of a
 * risky action, open question, last steps, fact diff, alerts, spend), who is on it (claim / take
 * over / release), the decision buttons, and once decided the undo banner with its countdown. When
 * the escalation is no longer open the buttons are disabled and the card says who decided what, when.
 */
export function ContextCard({ escalationId, me }: { escalationId: string; me: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const card = useQuery({
    ...trpc.escalation.get.queryOptions({ escalationId }),
    // Live updates cover tasks only: poll, faster while a decision waits out its window or is applied.
    refetchInterval: (q) => (q.state.data?.status === "applied" ? 30_000 : q.state.data?.status === "open" ? 5_000 : 1_000),
  });
  const [guidance, setGuidance] = useState("");
  const [extraSteps, setExtraSteps] = useState("");
  const [extraTokens, setExtraTokens] = useState("");
  const [extraUsd, setExtraUsd] = useState("");
  const [factDrafts, setFactDrafts] = useState<FactDrafts>({});
  const stepsInput = useRef<HTMLInputElement>(null);
  const tokensInput = useRef<HTMLInputElement>(null);
  const usdInput = useRef<HTMLInputElement>(null);
  const [deadEndReason, setDeadEndReason] = useState("");
  const [rejectReason, setRejectReason] = useState("");
  const refresh = () => void queryClient.invalidateQueries();
  const decide = useMutation(trpc.escalation.decide.mutationOptions({ onSettled: refresh }));
  const undo = useMutation(trpc.escalation.undo.mutationOptions({ onSettled: refresh }));
  const claim = useMutation(trpc.escalation.claim.mutationOptions({ onSettled: refresh }));
  const release = useMutation(trpc.escalation.release.mutationOptions({ onSettled: refresh }));
  const e = card.data;
  const waiting = e?.status === "decided" && e.applyInMs > 0;
  const now = useNow(waiting);
  // A budget escalation: focus the extra-budget field of the ceiling that was hit, once.
  const ceilingKind = e?.status === "open" ? e.ceiling?.kind : undefined;
  useEffect(() => {
    const field = ceilingKind === "cost" ? usdInput : ceilingKind === "tokens" ? tokensInput : ceilingKind === "steps" ? stepsInput : null;
    field?.current?.focus();
  }, [ceilingKind]);

  if (card.isError) return <p className="p-6 text-sm text-red-700">Could not load the escalation: {card.error.message}</p>;
  if (!e) return <div className="m-6 h-64 animate-pulse rounded bg-zinc-200/60" aria-busy="true" />;
  const open = e.status === "open";
  const busy = decide.isPending || undo.isPending;
  const hasTokenBudget = e.spend.tokenBudget !== null;
  const hasDollarBudget = e.spend.costBudgetUsd !== null;
  const steps = parseExtra("steps", extraSteps);
  const tokens = hasTokenBudget ? parseExtra("tokens", extraTokens) : {};
  const dollars = hasDollarBudget ? parseExtra("usd", extraUsd) : {};
  const facts = parseFactDrafts(factDrafts);
  const factProblems = Object.values(facts.problems);
  const budgetErrors = [steps.error, tokens.error, dollars.error].filter((x): x is string => !!x);
  /** Resume / Approve / Reject start a run: they carry the budget raise and the fact edits, so these must be valid. */
  const resumeBlocked = budgetErrors.length > 0 || factProblems.length > 0;
  const increase = {
    ...(steps.value ? { steps: steps.value } : {}),
    ...(tokens.value ? { tokens: tokens.value } : {}),
    ...(dollars.value ? { usd: dollars.value } : {}),
  };
  const send = (decision: Decision) => {
    decide.reset();
    undo.reset();
    const resuming = decision === "resume" || decision === "approve" || decision === "reject";
    decide.mutate({
      escalationId,
      decision,
      guidance: (decision === "reject" ? rejectReason || guidance : guidance) || undefined,
      budgetIncrease: resuming && Object.keys(increase).length ? increase : undefined,
      factEdits: resuming && Object.keys(facts.edits).length ? facts.edits : undefined,
      deadEndReason: decision === "dead_end" ? deadEndReason : undefined,
      undoSeconds: UI_UNDO_SECONDS,
    });
  };
  // Resuming a budget stop without raising the ceiling that was hit stops again at once.
  const ceiling = e.ceiling;
  const ceilingUnraised = ceiling !== null && (ceiling.kind === "cost" ? !dollars.value : ceiling.kind === "tokens" ? !tokens.value : !steps.value);
  const left = waiting ? secondsLeft(e.applyInMs, card.dataUpdatedAt, now) : 0;
  const mine = e.decidedBy === me;
  const who = mine ? "you" : (e.decidedBy ?? "someone");
  const risky = e.proposedCall !== null;
  const unresolved = e.reason === "unresolved_effect";
  /** Approve / Reject come first: a risky action's approval, or the verdict on an unknown outcome. */
  const verdict = risky || unresolved;
  const approveLabel = unresolved ? "It happened — don’t repeat it" : "Approve";
  const rejectLabel = unresolved ? "It did not happen — do it again" : "Reject";
  const error = decide.error ?? undo.error ?? claim.error ?? release.error;

  return (
    <div className="space-y-5 p-6" data-testid="context-card">
      {e.status === "decided" && (
        <div
          role="status"
          aria-live="polite"
          data-testid="undo-banner"
          className="sticky top-0 z-10 flex items-center justify-between gap-3 rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950 shadow-sm"
        >
          <span>
            {DECIDED_VERB[e.decision ?? ""] ?? e.decision} by {who} —{" "}
            {/* The ticking countdown is hidden from screen readers; they hear the deadline once (throttled live region). */}
            <span aria-hidden="true">{left > 0 ? `decided, applies in ${left} s` : "applying now…"}</span>
            <span className="sr-only">{left > 0 && e.applyAfter ? `decided; undo possible until ${absolute(e.applyAfter)}` : "applying now"}</span>
            {e.applyFailures > 0 && (
              <span className="mt-1 block text-red-800" data-testid="apply-failure">
                Applying failed {e.applyFailures === 1 ? "once" : `${e.applyFailures} times`}
                {e.applyFailedAt ? ` (last ${absolute(e.applyFailedAt)})` : ""}: {e.applyError ?? "unknown error"} — it is retried automatically; the run&apos;s
                timeline has the alert.
              </span>
            )}
          </span>
          {/* Only the handler who decided can take it back (the server refuses anyone else). */}
          {left > 0 && mine && (
            <button
              type="button"
              className="rounded-md border border-amber-600 bg-white px-3 py-1 text-sm font-medium text-amber-900 disabled:opacity-50"
              disabled={undo.isPending}
              onClick={() => undo.mutate({ escalationId })}
            >
              Undo ({left} s)
            </button>
          )}
        </div>
      )}

      <div>
        <div className="flex items-center gap-2 text-xs uppercase tracking-wide text-zinc-500">
          {REASONS[e.reason] ?? e.reason}
          {e.overdue && <span className="rounded bg-red-100 px-1.5 py-0.5 font-semibold normal-case text-red-800">⚠ Overdue (was due {ago(e.dueAt)})</span>}
        </div>
        <h2 className="mt-1 text-lg font-semibold">{e.message}</h2>
        <p className="mt-1 text-sm text-zinc-600">
          <Link className="underline" href={`/tasks/${e.taskId}`}>
            {e.goal.slice(0, 160)}
          </Link>
        </p>
        <p className="mt-1 text-xs text-zinc-500">
          {e.profile.name} · opened <span title={absolute(e.createdAt)}>{ago(e.createdAt)}</span> · due {absolute(e.dueAt)} · for {e.assigneeRole}
        </p>
      </div>

      <ClaimLine
        claimedBy={e.claimedBy}
        claimedAt={e.claimedAt}
        me={me}
        closed={e.status === "applied"}
        pending={claim.isPending || release.isPending}
        onClaim={() => claim.mutate({ escalationId })}
        onTakeOver={(from) => window.confirm(`${from} is on this. Take it over?`) && claim.mutate({ escalationId, takeOverFrom: from })}
        onRelease={() => release.mutate({ escalationId })}
      />

      {risky && e.proposedCall && (
        <div className="rounded-md border border-amber-300 bg-amber-50/40 p-3" data-testid="proposed-call">
          <div className="mb-2 text-sm">
            The agent wants to call <code className="rounded bg-white px-1 font-mono font-semibold">{e.proposedCall.tool}</code>. Approve lets that very call
            run (recognised by its fingerprint); Reject tells the agent not to.
          </div>
          {e.proposedCall.egress ? (
            <div className="space-y-2">
              <EgressFindings evidence={e.proposedCall.egress} />
              <div className="text-xs font-medium uppercase tracking-wide text-zinc-500">Arguments (findings highlighted, secrets redacted)</div>
              <HighlightedArguments args={e.proposedCall.arguments} evidence={e.proposedCall.egress} />
            </div>
          ) : (
            <JsonView value={e.proposedCall.arguments} label="Arguments" />
          )}
        </div>
      )}

      {unresolved && (
        <div className="rounded-md border border-amber-300 bg-amber-50/40 p-3" data-testid="unresolved-effect">
          <p className="mb-2 text-sm">
            The outcome of <code className="rounded bg-white px-1 font-mono font-semibold">{e.unresolvedEffect?.tool ?? "the call"}</code> is unknown: the
            process stopped after the request was sent and before its answer was recorded. <strong>Check the external system.</strong>
          </p>
          {e.unresolvedEffect && (
            <>
              <p className="mb-1 text-xs text-zinc-600">
                Idempotency key <code className="font-mono">{e.unresolvedEffect.idempotencyKey ?? "unknown"}</code> · step{" "}
                <code className="font-mono">{e.unresolvedEffect.stepId}</code>
              </p>
              <JsonView value={e.unresolvedEffect.arguments} label={`Arguments of ${e.unresolvedEffect.tool}`} />
            </>
          )}
        </div>
      )}

      {ceiling && (
        <p className="rounded-md border border-amber-300 bg-amber-50/40 px-3 py-2 text-sm" data-testid="ceiling">
          Stopped at the <strong>{describeCeiling(ceiling)}</strong>.{open ? " Raise it below to go on." : ""}
        </p>
      )}

      <div className="grid grid-cols-4 gap-3 text-sm" data-testid="spend">
        <div className={cn("rounded border p-3", ceiling?.kind === "cost" ? "border-amber-400" : "border-zinc-200")}>
          <div className="text-xs text-zinc-500">Dollars</div>
          <div className="font-semibold">
            {usd(e.spend.usd)}
            {e.spend.costBudgetUsd !== null ? ` / ${usd(e.spend.costBudgetUsd)}` : ""}
          </div>
          {e.spend.costBudgetUsd === null && <div className="text-xs text-zinc-500">no dollar budget</div>}
          {e.spend.wastedUsd > 0 && <div className="text-xs text-zinc-500">{usd(e.spend.wastedUsd)} wasted on retries</div>}
        </div>
        <div className={cn("rounded border p-3", ceiling?.kind === "steps" ? "border-amber-400" : "border-zinc-200")}>
          <div className="text-xs text-zinc-500">Steps</div>
          <div className="font-semibold">
            {e.spend.steps} / {e.spend.stepBudget}
          </div>
        </div>
        <div className={cn("rounded border p-3", ceiling?.kind === "tokens" ? "border-amber-400" : "border-zinc-200")}>
          <div className="text-xs text-zinc-500">Tokens</div>
          <div
            className="font-semibold"
            title={`${e.spend.tokens.toLocaleString("en-US")}${e.spend.tokenBudget !== null ? ` of ${e.spend.tokenBudget.toLocaleString("en-US")}` : ""}`}
          >
            {compactNumber(e.spend.tokens)}
            {e.spend.tokenBudget !== null ? ` / ${compactNumber(e.spend.tokenBudget)}` : ""}
          </div>
          {e.spend.tokenBudget === null && <div className="text-xs text-zinc-500">no token budget</div>}
        </div>
        <div className="rounded border border-zinc-200 p-3">
          <div className="text-xs text-zinc-500">Checkpoint</div>
          <div className="font-semibold">{e.checkpoint ? `#${e.checkpoint.seq}` : "none (from the start)"}</div>
        </div>
      </div>
      {e.checkpoint?.openQuestion && (
        <p className="rounded bg-zinc-50 p-3 text-sm">
          <span className="font-medium">Open question:</span> {e.checkpoint.openQuestion}
        </p>
      )}
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Last steps</h3>
        <ol className="space-y-1 font-mono text-xs">
          {e.lastSteps.map((s) => (
            <li key={s.stepId} className={cn(s.status === "failed" && "text-red-700")}>
              {s.stepId} {s.summary || s.tool || s.kind}
            </li>
          ))}
        </ol>
      </div>
      <div>
        <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Facts changed since the previous checkpoint</h3>
        {e.factDiff.length === 0 ? (
          <p className="text-xs text-zinc-500">None.</p>
        ) : (
          <ul className="max-h-40 overflow-auto font-mono text-xs">
            {e.factDiff.map((c) => (
              <li key={c.key}>
                {c.kind === "added" ? "+" : c.kind === "removed" ? "−" : "~"} {c.key}: {JSON.stringify(c.kind === "removed" ? c.before : c.after).slice(0, 120)}
              </li>
            ))}
          </ul>
        )}
      </div>
      {e.alerts.length > 0 && (
        <div>
          <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-zinc-500">Alerts</h3>
          <ul className="space-y-1 text-xs">
            {e.alerts.slice(0, 8).map((a, i) => (
              <li key={i}>
                <span className={cn("mr-1 rounded px-1", a.severity === "critical" ? "bg-red-100 text-red-800" : "bg-amber-100 text-amber-900")}>{a.kind}</span>
                {a.message} <span className="text-zinc-400">({a.stepId})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {e.undos.length > 0 && (
        <ul className="space-y-0.5 text-xs text-zinc-500" data-testid="undos">
          {e.undos.map((u, i) => (
            <li key={i}>
              Undone: {u.decision.replace("_", " ")} by {u.decidedBy ?? "someone"}, taken back by {u.undoneBy}
              {u.undoneAt ? ` at ${absolute(u.undoneAt)}` : ""}
            </li>
          ))}
        </ul>
      )}

      {!open && (
        <p id="decided-note" className="rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm" data-testid="decided">
          {e.decision ? `${e.decision.replace("_", " ")} by ${e.decidedBy ?? "someone"}` : e.status}
          {e.decidedAt ? <span title={absolute(e.decidedAt)}> {ago(e.decidedAt)}</span> : ""}
          {e.guidance ? ` — “${e.guidance}”` : ""}
          {e.deadEndReason ? ` — “${e.deadEndReason}”` : ""}
          {e.status === "applied"
            ? ` · applied ${e.appliedAt ? absolute(e.appliedAt) : ""}`
            : e.status === "applying"
              ? " · being applied"
              : waiting
                ? ` · applies in ${left} s`
                : " · being applied"}
          {e.resultRunId ? " · a new run started" : ""}.{" "}
          {e.status === "decided" && mine
            ? "The buttons are off until you undo it."
            : `The buttons are off because this escalation was already decided${mine ? "" : " by someone else"}.`}
        </p>
      )}

      <fieldset
        disabled={!open || busy}
        className="space-y-3 border-t border-zinc-200 pt-4 disabled:opacity-60"
        aria-describedby={!open ? "decided-note" : undefined}
      >
        <legend className="sr-only">Decision</legend>
        {verdict && (
          <div className="space-y-2 rounded-md border border-zinc-200 p-3">
            <div className="flex flex-wrap items-center gap-2">
              <button
                type="button"
                className="rounded-md bg-emerald-700 px-4 py-2 text-sm font-medium text-white disabled:opacity-50"
                disabled={resumeBlocked}
                onClick={() => send("approve")}
              >
                {approveLabel}
              </button>
              <button
                type="button"
                className="rounded-md border border-red-600 px-4 py-2 text-sm text-red-800 disabled:opacity-50"
                disabled={resumeBlocked}
                onClick={() => send("reject")}
              >
                {rejectLabel}
              </button>
              {risky && (
                <input
                  aria-label="Reject reason"
                  className="min-w-48 flex-1 rounded-md border border-zinc-300 px-2 py-1.5 text-sm"
                  value={rejectReason}
                  onChange={(ev) => setRejectReason(ev.target.value)}
                  placeholder="Why not (optional, passed to the agent as guidance)"
                />
              )}
            </div>
            {unresolved && <p className="text-xs text-zinc-500">Either way the run resumes from its last checkpoint, with the guidance below.</p>}
          </div>
        )}
        <label htmlFor="guidance" className="block text-sm font-medium">
          Guidance for the agent
        </label>
        <textarea
          id="guidance"
          rows={3}
          className="w-full rounded-md border border-zinc-300 px-3 py-2 text-sm"
          value={guidance}
          onChange={(ev) => setGuidance(ev.target.value)}
          placeholder="What should it do differently?"
        />
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2" role="group" aria-label="Budget raise">
          <BudgetField
            id="extraSteps"
            label="Extra steps"
            inputRef={stepsInput}
            value={extraSteps}
            onChange={setExtraSteps}
            placeholder="0"
            after={steps.value ? `→ ${e.spend.stepBudget + steps.value}` : null}
          />
          {hasTokenBudget && (
            <BudgetField
              id="extraTokens"
              label="Extra tokens"
              inputRef={tokensInput}
              value={extraTokens}
              onChange={setExtraTokens}
              placeholder="0"
              after={tokens.value ? `→ ${compactNumber((e.spend.tokenBudget ?? 0) + tokens.value)}` : null}
            />
          )}
          {hasDollarBudget && (
            <BudgetField
              id="extraUsd"
              label="Extra dollars"
              inputRef={usdInput}
              value={extraUsd}
              onChange={setExtraUsd}
              placeholder="0.00"
              prefix="$"
              after={dollars.value ? `→ ${usd((e.spend.costBudgetUsd ?? 0) + dollars.value)}` : null}
            />
          )}
        </div>
        {budgetErrors.map((m) => (
          <p key={m} className="text-xs text-red-700">
            {m}
          </p>
        ))}
        {ceilingUnraised && open && (
          <p className="text-xs text-amber-800">
            The {ceiling.kind === "cost" ? "dollar" : ceiling.kind === "tokens" ? "token" : "step"} ceiling is still where it stopped: without a raise the run
            stops again at once.
          </p>
        )}
        {e.checkpoint ? (
          <FactEditor facts={e.checkpoint.workingSet} drafts={factDrafts} onChange={setFactDrafts} />
        ) : (
          <p className="text-xs text-zinc-500">
            No checkpoint: the run restarts from the launch facts, so there are no facts to edit here (give them as guidance).
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <button
            type="button"
            className={cn("rounded-md px-4 py-2 text-sm font-medium disabled:opacity-50", verdict ? "border border-zinc-400" : "bg-zinc-900 text-white")}
            disabled={resumeBlocked}
            onClick={() => send("resume")}
          >
            {verdict ? "Resume with guidance" : "Resume"}
          </button>
          <button
            type="button"
            className="rounded-md border border-zinc-300 px-3 py-2 text-sm disabled:opacity-50"
            onClick={() => window.confirm("Cancel this task?") && send("cancel")}
          >
            Cancel task
          </button>
        </div>
        <div className="flex items-center gap-2">
          <input
            aria-label="Dead-end reason"
            className="flex-1 rounded-md border border-zinc-300 px-2 py-1 text-sm"
            value={deadEndReason}
            onChange={(ev) => setDeadEndReason(ev.target.value)}
            placeholder="Why the task cannot be done (required to mark a dead end)"
          />
          <button
            type="button"
            className="rounded-md border border-violet-600 px-3 py-1.5 text-sm text-violet-800 disabled:opacity-50"
            disabled={deadEndReason.trim() === ""}
            onClick={() => send("dead_end")}
          >
            Mark dead end
          </button>
        </div>
        <p className="text-xs text-zinc-500">Every decision can be undone for {UI_UNDO_SECONDS} s before it applies.</p>
      </fieldset>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
    </div>
  );
}

/** One extra-budget input: label, optional unit prefix, and the new total when something is typed. */
function BudgetField({
  id,
  label,
  inputRef,
  value,
  onChange,
  placeholder,
  prefix,
  after,
}: {
  id: string;
  label: string;
  inputRef: RefObject<HTMLInputElement | null>;
  value: string;
  onChange: (v: string) => void;
  placeholder: string;
  prefix?: string;
  after: string | null;
}) {
  return (
    <div className="flex items-center gap-2">
      <label htmlFor={id} className="text-sm">
        {label}
      </label>
      <span className="flex items-center gap-1">
        {prefix && <span className="text-sm text-zinc-500">{prefix}</span>}
        <input
          ref={inputRef}
          id={id}
          inputMode="decimal"
          className="w-28 rounded-md border border-zinc-300 px-2 py-1 text-sm"
          value={value}
          onChange={(ev) => onChange(ev.target.value)}
          placeholder={placeholder}
        />
      </span>
      {after && <span className="text-xs text-zinc-500">{after}</span>}
    </div>
  );
}

/** "<name> is on this": claim, take over (confirmed), release. Claims never block deciding. */
function ClaimLine({
  claimedBy,
  claimedAt,
  me,
  closed,
  pending,
  onClaim,
  onTakeOver,
  onRelease,
}: {
  claimedBy: string | null;
  claimedAt: Date | null;
  me: string;
  closed: boolean;
  pending: boolean;
  onClaim: () => void;
  onTakeOver: (from: string) => void;
  onRelease: () => void;
}) {
  const since = claimedAt ? <span title={absolute(claimedAt)}> (since {ago(claimedAt)})</span> : null;
  const button = "rounded-md border border-zinc-300 px-3 py-1 text-sm disabled:opacity-50";
  return (
    <div className="flex items-center justify-between gap-3 rounded-md border border-zinc-200 px-3 py-2 text-sm" data-testid="claim">
      {claimedBy === null ? (
        <span className="text-zinc-600">Nobody is on this yet.</span>
      ) : (
        <span>
          <span className="font-medium">{claimedBy} is on this</span>
          {claimedBy === me ? " (you)" : ""}
          {since}
          {claimedBy !== me && !closed ? <span className="text-zinc-500"> — you can still decide; the card shows who is on it.</span> : null}
        </span>
      )}
      {!closed &&
        (claimedBy === null ? (
          <button type="button" className={button} disabled={pending} onClick={onClaim}>
            I’m on this
          </button>
        ) : claimedBy === me ? (
          <button type="button" className={button} disabled={pending} onClick={onRelease}>
            Release
          </button>
        ) : (
          <button type="button" className={button} disabled={pending} onClick={() => onTakeOver(claimedBy)}>
            Take over
          </button>
        ))}
    </div>
  );
}

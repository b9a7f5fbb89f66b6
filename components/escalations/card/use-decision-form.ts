"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/components/trpc.tsx";
import { useIdempotencyKey } from "@/components/ui/use-idempotency-key.ts";
import { MAX_EXTRA, type EscalationDecision } from "@/lib/contracts/escalation.ts";
import type { AppRouter } from "@/server/api/root.ts";
import { parseFactDrafts, type FactDrafts } from "../fact-editor.tsx";
import type { FieldLabels } from "@/components/ui/field-labels.ts";
import { useActionStatus } from "@/components/ui/use-action-status.tsx";

/** One escalation as the card reads it (`escalation.get`). */
export type EscalationCard = inferRouterOutputs<AppRouter>["escalation"]["get"];

/** The decision's fields as the API names them, in the card's words (ids and keys say nothing to a person). */
const DECISION_FIELDS: FieldLabels = {
  escalationId: null,
  idempotencyKey: null,
  takeOverFrom: null,
  undoSeconds: null,
  decision: "Decision",
  guidance: "Guidance for the agent",
  deadEndReason: "Dead-end reason",
  budgetIncrease: "Budget raise",
  "budgetIncrease.steps": "Extra steps",
  "budgetIncrease.tokens": "Extra tokens",
  "budgetIncrease.usd": "Extra dollars",
  factEdits: "Facts",
  "factEdits.*": "A fact",
};

/** Undo window the inbox gives every decision (seconds). */
export const UI_UNDO_SECONDS = 10;

/**
 * A typed budget raise: undefined when empty, else the number, or the error naming the field and
 * its limits (steps and tokens whole numbers from 0; dollars more than 0).
 */
export function parseExtra(kind: "steps" | "tokens" | "usd", text: string): { value?: number; error?: string } {
  const t = text.trim();
  if (t === "") return {};
  if (kind === "usd") {
    const n = Number(t);
    // Plain decimals only: "1e3" or "0x10" are numbers to JavaScript, not to a person typing dollars.
    return /^\d+(\.\d+)?$|^\.\d+$/.test(t) && n > 0 && n <= MAX_EXTRA.usd ? { value: n } : { error: `Extra dollars: more than 0 and at most ${MAX_EXTRA.usd}` };
  }
  const label = kind === "steps" ? "Extra steps" : "Extra tokens";
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  return Number.isInteger(n) && n >= 0 && n <= MAX_EXTRA[kind] ? { value: n } : { error: `${label}: a whole number from 0 to ${MAX_EXTRA[kind]}` };
}

/**
 * The decision form's state and the card's mutations: guidance, the budget raise (typed text, parsed
 * with {@link parseExtra}), fact edits, the dead-end and reject reasons; `send` decides with what
 * applies to that decision (a raise and fact edits only for the decisions that start a run). On a
 * budget escalation the raise field of the ceiling that was hit takes focus once.
 */
export function useDecisionForm(escalationId: string, e: EscalationCard | undefined) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // One line for the card's actions (decide, undo, apply now, claim, release): each clears it when it starts.
  const status = useActionStatus(DECISION_FIELDS);
  /** A field's setter that also takes away a refusal naming that field. */
  const editing =
    <T>(set: (v: T) => void, field: string) =>
    (v: T) => {
      set(v);
      status.edited(field);
    };
  const [guidance, setGuidanceRaw] = useState("");
  const [extraSteps, setExtraStepsRaw] = useState("");
  const [extraTokens, setExtraTokensRaw] = useState("");
  const [extraUsd, setExtraUsdRaw] = useState("");
  const [factDrafts, setFactDraftsRaw] = useState<FactDrafts>({});
  const [deadEndReason, setDeadEndReasonRaw] = useState("");
  const [rejectReason, setRejectReasonRaw] = useState("");
  const setGuidance = editing(setGuidanceRaw, "guidance");
  const setExtraSteps = editing(setExtraStepsRaw, "budgetIncrease");
  const setExtraTokens = editing(setExtraTokensRaw, "budgetIncrease");
  const setExtraUsd = editing(setExtraUsdRaw, "budgetIncrease");
  const setFactDrafts = editing(setFactDraftsRaw, "factEdits");
  const setDeadEndReason = editing(setDeadEndReasonRaw, "deadEndReason");
  const setRejectReason = editing(setRejectReasonRaw, "guidance");
  const stepsInput = useRef<HTMLInputElement>(null);
  const tokensInput = useRef<HTMLInputElement>(null);
  const usdInput = useRef<HTMLInputElement>(null);
  // Settle only once the card has been read again, so the pending state lasts until the card shows the outcome.
  const refresh = () => queryClient.invalidateQueries();
  // One key per decision: a double click decides once; a decision after an undo is a new one (a new key).
  const [idempotencyKey, renewKey] = useIdempotencyKey();
  const lined = { onMutate: status.start, onError: status.fail, onSettled: refresh };
  const decide = useMutation(trpc.escalation.decide.mutationOptions({ ...lined, onSuccess: renewKey }));
  const undo = useMutation(trpc.escalation.undo.mutationOptions(lined));
  const applyNow = useMutation(trpc.escalation.applyNow.mutationOptions(lined));
  const claim = useMutation(trpc.escalation.claim.mutationOptions(lined));
  const release = useMutation(trpc.escalation.release.mutationOptions(lined));

  const ceilingKind = e?.status === "open" ? e.ceiling?.kind : undefined;
  useEffect(() => {
    const field = ceilingKind === "cost" ? usdInput : ceilingKind === "tokens" ? tokensInput : ceilingKind === "steps" ? stepsInput : null;
    field?.current?.focus();
  }, [ceilingKind]);

  const hasTokenBudget = e?.spend.tokenBudget !== null && e?.spend.tokenBudget !== undefined;
  const hasDollarBudget = e?.spend.costBudgetUsd !== null && e?.spend.costBudgetUsd !== undefined;
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
  const send = (decision: EscalationDecision) => {
    decide.reset();
    undo.reset();
    applyNow.reset();
    const resuming = decision === "resume" || decision === "approve" || decision === "reject";
    decide.mutate({
      escalationId,
      decision,
      guidance: (decision === "reject" ? rejectReason || guidance : guidance) || undefined,
      budgetIncrease: resuming && Object.keys(increase).length ? increase : undefined,
      factEdits: resuming && Object.keys(facts.edits).length ? facts.edits : undefined,
      deadEndReason: decision === "dead_end" ? deadEndReason : undefined,
      undoSeconds: UI_UNDO_SECONDS,
      idempotencyKey,
    });
  };
  // Resuming a budget stop without raising the ceiling that was hit stops again at once.
  const ceiling = e?.ceiling ?? null;
  const ceilingUnraised = ceiling !== null && (ceiling.kind === "cost" ? !dollars.value : ceiling.kind === "tokens" ? !tokens.value : !steps.value);

  return {
    fields: { guidance, setGuidance, extraSteps, setExtraSteps, extraTokens, setExtraTokens, extraUsd, setExtraUsd, factDrafts, setFactDrafts },
    reasons: { deadEndReason, setDeadEndReason, rejectReason, setRejectReason },
    refs: { stepsInput, tokensInput, usdInput },
    parsed: { steps, tokens, dollars, hasTokenBudget, hasDollarBudget },
    budgetErrors,
    resumeBlocked,
    ceilingUnraised,
    send,
    mutations: { decide, undo, applyNow, claim, release },
    /** The decision in flight: which one, so its button says so. */
    pendingDecision: decide.isPending ? decide.variables.decision : null,
    /** The last action's refusal in the card's words (components/ui/use-action-status.tsx), or null. */
    line: status.line,
  };
}

export type DecisionForm = ReturnType<typeof useDecisionForm>;

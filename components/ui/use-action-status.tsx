"use client";

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { clearedByEdit, doneLine, errorLine, outcomeTicket, visibleLine, type ActionLine } from "./action-status.ts";
import { cn } from "./cn.ts";
import type { FieldLabels } from "./field-labels.ts";
import { SafeText } from "./safe-text.tsx";

interface Scope {
  /** The ticket of the newest start in the scope (an outcome shows under its own start's ticket). */
  latest: number;
  /** Takes the next ticket, making it the newest. */
  claim: () => number;
}

const ScopeContext = createContext<Scope | null>(null);

/**
 * Where "the next action" is looked for: every {@link useActionStatus} below shows its line only
 * while its action is the newest started in the scope. The app frame puts one around each
 * page, so an action started anywhere on the page takes every older line away.
 */
export function ActionScope({ children }: { children: ReactNode }) {
  const counter = useRef(0);
  const [latest, setLatest] = useState(0);
  const claim = useCallback(() => {
    counter.current += 1;
    setLatest(counter.current);
    return counter.current;
  }, []);
  const value = useMemo(() => ({ latest, claim }), [latest, claim]);
  return <ScopeContext.Provider value={value}>{children}</ScopeContext.Provider>;
}

/**
 * One action's status line (components/ui/action-status.ts has the rules): `start()` when the action
 * starts (its old line goes, and so does every other line of the scope), then `fail(error)` — the
 * server's message in the form's words (`labels`, components/ui/field-labels.ts) — or `done(text)`;
 * `edited(field?)` from a field's onChange takes away an error naming that field (an API path; none
 * = any field of the form). `line` is what to show ({@link StatusLine}), null when nothing stands.
 */
export function useActionStatus(labels: FieldLabels = {}) {
  const scope = useContext(ScopeContext);
  const claim = scope?.claim;
  const [state, setState] = useState<{ line: ActionLine | null; ticket: number }>({ line: null, ticket: 0 });
  const pending = useRef<{ started: number | null }>({ started: null });
  const start = useCallback(() => {
    const ticket = claim ? claim() : 0;
    pending.current.started = ticket;
    setState({ line: null, ticket });
  }, [claim]);
  const outcome = useCallback((line: ActionLine) => setState({ line, ticket: outcomeTicket(pending.current, claim) }), [claim]);
  const edited = useCallback((field?: string) => setState((s) => (clearedByEdit(s.line, field) ? { ...s, line: null } : s)), []);
  return {
    line: visibleLine(state.line, state.ticket, scope ? scope.latest : null),
    start,
    fail: (error: { message: string }) => outcome(errorLine(error.message, labels)),
    done: (text: string) => outcome(doneLine(text)),
    edited,
    clear: () => setState((s) => ({ ...s, line: null })),
  };
}

/** What {@link useActionStatus} returns. */
export type ActionStatus = ReturnType<typeof useActionStatus>;

/**
 * An action's line: an error (red, `role="alert"`, `data-testid="<testId>-error"`) or what was done
 * (green, `role="status"`, `<testId>-done`); nothing when `line` is null. The text is the server's
 * and may quote what people typed: shown through SafeText.
 */
export function StatusLine({ line, testId, className }: { line: ActionLine | null; testId?: string; className?: string }) {
  if (!line) return null;
  const error = line.kind === "error";
  return (
    <p
      role={error ? "alert" : "status"}
      className={cn("text-sm", error ? "text-red-700" : "text-emerald-800", className)}
      data-testid={testId ? `${testId}-${error ? "error" : "done"}` : undefined}
    >
      <SafeText text={line.text} multiline />
    </p>
  );
}

"use client";

import { useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { SafeText } from "@/components/ui/safe-text.tsx";

/** Longest JSON shown inline; a longer value is described and opens whole under an expander. */
const INLINE_MAX = 120;

/** A short description of a long JSON value: its keys, item count or length — never a cut-off JSON text. */
function describe(value: unknown, text: string): string {
  const size = text.length >= 1024 ? `${(text.length / 1024).toFixed(1)} kB` : `${text.length} chars`;
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? "" : "s"}] · ${size}`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    const shown = keys.slice(0, 4).join(", ");
    return `{${shown}${keys.length > 4 ? `, +${keys.length - 4} more` : ""}} · ${size}`;
  }
  return `text · ${size}`;
}

/**
 * One fact value: whole JSON inline when short; otherwise a description (keys, items, size) and a
 * Show/Hide button that opens the whole value pretty-printed. A JSON text is never cut in the middle.
 */
export function FactValue({ value, className }: { value: unknown; className?: string }) {
  const [open, setOpen] = useState(false);
  const text = JSON.stringify(value) ?? "undefined";
  if (text.length <= INLINE_MAX)
    return (
      <code className={cn("font-mono text-xs break-all", className)}>
        <SafeText text={text} />
      </code>
    );
  return (
    <span className={cn(open ? "block" : "inline-block max-w-full align-top", className)}>
      <button
        type="button"
        aria-expanded={open}
        className="font-mono text-xs text-zinc-600 underline decoration-dotted hover:text-zinc-900"
        onClick={() => setOpen(!open)}
        title={open ? "Hide the value" : "Show the whole value"}
      >
        {open ? "▾" : "▸"} <SafeText text={describe(value, text)} />
      </button>
      {open && (
        <pre className="mt-1 max-h-72 overflow-auto rounded bg-zinc-950 p-2 font-mono text-xs whitespace-pre-wrap break-all text-zinc-100">
          <SafeText text={JSON.stringify(value, null, 2)} multiline />
        </pre>
      )}
    </span>
  );
}

/** The shape of one working-set change as the workingSet procedures return it. */
export interface FactChangeLike {
  key: string;
  kind: "added" | "changed" | "removed";
  before?: unknown;
  after?: unknown;
}

const SIGN = { added: "+", changed: "~", removed: "−" } as const;
const TONE = { added: "bg-emerald-50", changed: "bg-amber-50", removed: "bg-red-50" } as const;
const SIGN_TONE = { added: "text-emerald-700", changed: "text-amber-700", removed: "text-red-700" } as const;

/** One change: `+ key: after`, `~ key: before → after`, `− key: before` (whole values, expandable). */
export function FactChangeLine({ change }: { change: FactChangeLike }) {
  return (
    <div className={cn("flex gap-2 px-2 py-1 text-xs", TONE[change.kind])} data-testid="fact-change" data-kind={change.kind} data-key={change.key}>
      <span className={cn("w-3 shrink-0 font-mono font-semibold", SIGN_TONE[change.kind])} aria-label={change.kind}>
        {SIGN[change.kind]}
      </span>
      <span className="min-w-0 flex-1">
        <SafeText className="font-mono break-all text-zinc-900" text={change.key} />
        <span className="text-zinc-400">: </span>
        {change.kind === "changed" && (
          <>
            <FactValue value={change.before} className="text-zinc-500" />
            <span className="px-1 text-zinc-400">→</span>
          </>
        )}
        <FactValue value={change.kind === "removed" ? change.before : change.after} className={change.kind === "removed" ? "text-zinc-500" : undefined} />
      </span>
    </div>
  );
}

/** "+2 ~1 −3 facts": the counts of a step's changes, zero counts left out. */
export function factCountLabel({ added, changed, removed }: { added: number; changed: number; removed: number }): string {
  const parts = [added ? `+${added}` : "", changed ? `~${changed}` : "", removed ? `−${removed}` : ""].filter(Boolean);
  const n = added + changed + removed;
  return `${parts.join(" ")} fact${n === 1 ? "" : "s"}`;
}

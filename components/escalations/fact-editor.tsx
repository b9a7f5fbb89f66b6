"use client";

import { useEffect, useRef, useState } from "react";

/** Fact keys as `record_fact` takes them: 1–200 characters (docs/CONTRACTS.md). */
export const MAX_FACT_KEY_LENGTH = 200;

/** Draft fact edits: key → the value as typed (JSON text). */
export type FactDrafts = Record<string, string>;

/**
 * The drafts parsed for `factEdits` ({key: JSON value}), or the problems, one per bad key, each
 * naming the key ("Fact "x": not valid JSON — …"). Empty drafts give `{edits: {}, problems: {}}`.
 */
export function parseFactDrafts(drafts: FactDrafts): { edits: Record<string, unknown>; problems: Record<string, string> } {
  const edits: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const [key, text] of Object.entries(drafts)) {
    if (key.length === 0 || key.length > MAX_FACT_KEY_LENGTH) {
      problems[key] = `Fact key: 1 to ${MAX_FACT_KEY_LENGTH} characters (got ${key.length})`;
      continue;
    }
    try {
      edits[key] = JSON.parse(text) as unknown;
    } catch (error) {
      problems[key] = `Fact "${key}": not valid JSON — ${error instanceof Error ? error.message : String(error)} (write strings in quotes: "text")`;
    }
  }
  return { edits, problems };
}

const preview = (value: unknown) => {
  const text = JSON.stringify(value) ?? "";
  return text.length > 90 ? `${text.slice(0, 90)}…` : text;
};

/**
 * The working set a resume starts from, with an Edit action per fact and "Add fact". Edited and
 * added facts are listed first as JSON text areas (validated as you type; an invalid one shows its
 * error inline, naming the key); "Undo edit" drops one. A filter appears when there are many facts.
 */
export function FactEditor({ facts, drafts, onChange }: { facts: Record<string, unknown>; drafts: FactDrafts; onChange: (next: FactDrafts) => void }) {
  const [filter, setFilter] = useState("");
  const [adding, setAdding] = useState(false);
  const [newKey, setNewKey] = useState("");
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const areas = useRef(new Map<string, HTMLTextAreaElement>());
  const addKeyInput = useRef<HTMLInputElement>(null);
  const { problems } = parseFactDrafts(drafts);
  const keys = Object.keys(facts).sort();
  const shown = filter ? keys.filter((k) => k.toLowerCase().includes(filter.toLowerCase())) : keys;
  const newKeyError = newKey.length > MAX_FACT_KEY_LENGTH ? `Fact key: at most ${MAX_FACT_KEY_LENGTH} characters (got ${newKey.length})` : null;

  useEffect(() => {
    if (focusKey === null) return;
    areas.current.get(focusKey)?.focus();
    setFocusKey(null);
  }, [focusKey]);
  useEffect(() => {
    if (adding) addKeyInput.current?.focus();
  }, [adding]);

  const edit = (key: string) => {
    if (!(key in drafts)) onChange({ ...drafts, [key]: key in facts ? JSON.stringify(facts[key], null, 2) : '""' });
    setFocusKey(key);
  };
  const drop = (key: string) => {
    const next = { ...drafts };
    delete next[key];
    onChange(next);
  };
  const add = () => {
    const key = newKey.trim();
    if (key === "" || newKeyError) return;
    edit(key);
    setNewKey("");
    setAdding(false);
  };

  return (
    <div className="space-y-2" data-testid="fact-editor">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-medium">
          Facts the run resumes with{" "}
          <span className="font-normal text-zinc-500">
            ({keys.length}
            {Object.keys(drafts).length ? `, ${Object.keys(drafts).length} edited` : ""})
          </span>
        </h3>
        <div className="flex items-center gap-2">
          {keys.length > 8 && (
            <input
              aria-label="Filter facts"
              className="w-40 rounded-md border border-zinc-300 px-2 py-0.5 text-xs"
              value={filter}
              onChange={(ev) => setFilter(ev.target.value)}
              placeholder="Filter keys"
            />
          )}
          <button type="button" className="rounded-md border border-zinc-300 px-2 py-0.5 text-xs" onClick={() => setAdding((a) => !a)} aria-expanded={adding}>
            Add fact
          </button>
        </div>
      </div>

      {adding && (
        <div className="flex items-start gap-2">
          <div className="flex-1">
            <input
              ref={addKeyInput}
              aria-label="New fact key"
              className="w-full rounded-md border border-zinc-300 px-2 py-1 font-mono text-xs"
              value={newKey}
              onChange={(ev) => setNewKey(ev.target.value)}
              onKeyDown={(ev) => {
                if (ev.key === "Enter") {
                  ev.preventDefault();
                  add();
                } else if (ev.key === "Escape") setAdding(false);
              }}
              placeholder="key, e.g. handler:note (Enter to add)"
              aria-invalid={!!newKeyError}
            />
            {newKeyError && <p className="mt-0.5 text-xs text-red-700">{newKeyError}</p>}
          </div>
          <button
            type="button"
            className="rounded-md border border-zinc-300 px-2 py-1 text-xs disabled:opacity-50"
            disabled={newKey.trim() === "" || !!newKeyError}
            onClick={add}
          >
            Add
          </button>
        </div>
      )}

      {Object.keys(drafts).length > 0 && (
        <ul className="space-y-2" aria-label="Edited facts">
          {Object.entries(drafts).map(([key, text]) => (
            <li key={key} className="rounded-md border border-blue-200 bg-blue-50/40 p-2">
              <div className="mb-1 flex items-center justify-between gap-2 text-xs">
                <span className="break-all font-mono font-medium">
                  {key} <span className="font-sans font-normal text-zinc-500">{key in facts ? "edited" : "new"}</span>
                </span>
                <button type="button" className="shrink-0 text-xs text-zinc-600 underline" onClick={() => drop(key)} aria-label={`Undo edit of ${key}`}>
                  Undo edit
                </button>
              </div>
              <textarea
                ref={(el) => {
                  if (el) areas.current.set(key, el);
                  else areas.current.delete(key);
                }}
                aria-label={`Value of ${key} (JSON)`}
                aria-invalid={!!problems[key]}
                aria-describedby={problems[key] ? `fact-error-${key}` : undefined}
                rows={Math.min(8, Math.max(1, text.split("\n").length))}
                spellCheck={false}
                className="w-full rounded border border-zinc-300 px-2 py-1 font-mono text-xs"
                value={text}
                onChange={(ev) => onChange({ ...drafts, [key]: ev.target.value })}
              />
              {problems[key] && (
                <p id={`fact-error-${key}`} className="text-xs text-red-700">
                  {problems[key]}
                </p>
              )}
            </li>
          ))}
        </ul>
      )}

      {keys.length === 0 ? (
        <p className="text-xs text-zinc-500">The working set is empty.</p>
      ) : (
        <ul className="max-h-56 divide-y divide-zinc-100 overflow-auto rounded-md border border-zinc-200 font-mono text-xs" aria-label="Current facts">
          {shown.map((key) => (
            <li key={key} className="flex items-center gap-2 px-2 py-1">
              <span className="max-w-[45%] min-w-0 shrink-0 truncate font-medium" title={key}>
                {key}
              </span>
              <span className="min-w-0 flex-1 truncate text-zinc-500" title={preview(facts[key])}>
                {preview(facts[key])}
              </span>
              <button
                type="button"
                className="shrink-0 rounded border border-zinc-300 px-1.5 font-sans text-xs disabled:opacity-50"
                onClick={() => edit(key)}
                aria-label={`Edit ${key}`}
                disabled={key in drafts}
              >
                {key in drafts ? "Editing" : "Edit"}
              </button>
            </li>
          ))}
          {shown.length === 0 && <li className="px-2 py-1 font-sans text-zinc-500">No key matches “{filter}”.</li>}
        </ul>
      )}
    </div>
  );
}

"use client";

import { useState } from "react";
import { SafeText } from "./safe-text.tsx";

const PREVIEW_BYTES = 64 * 1024;

/**
 * Pretty JSON (or text) with a Copy button; controls and bidi controls inside it show as escapes
 * (SafeText: JSON.stringify escapes C0 controls, not DEL, C1 or U+202E), Copy gives the exact text. Payloads over 64 KiB show a preview and the rest on
 * request (a large payload shows a preview and never freezes the page).
 */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  const [full, setFull] = useState(false);
  const [copied, setCopied] = useState(false);
  const big = text.length > PREVIEW_BYTES;
  const shown = big && !full ? text.slice(0, PREVIEW_BYTES) : text;
  return (
    <div>
      <div className="mb-1 flex items-center justify-between">
        <span className="text-xs font-medium uppercase tracking-wide text-zinc-500">{label}</span>
        <button
          type="button"
          className="text-xs text-zinc-500 hover:text-zinc-900"
          onClick={() => {
            void navigator.clipboard?.writeText(text).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre className="max-h-96 overflow-auto rounded-md bg-zinc-950 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap break-all text-zinc-100">
        <SafeText text={shown} multiline />
      </pre>
      {big && !full && (
        <button type="button" className="mt-1 text-xs font-medium text-zinc-700 underline" onClick={() => setFull(true)}>
          Show all {(text.length / 1024).toFixed(0)} KiB
        </button>
      )}
    </div>
  );
}

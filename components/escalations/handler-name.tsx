"use client";

import { useEffect, useState } from "react";

const STORAGE_KEY = "longhaul.handlerName";
/** Read by server/api/trpc.ts (actorFrom) on every tRPC request the dashboard makes. */
const ACTOR_COOKIE = "longhaul_actor";
/** The name the server uses when none is set. */
export const DEFAULT_HANDLER = "operator";

function writeCookie(name: string) {
  document.cookie = name
    ? `${ACTOR_COOKIE}=${encodeURIComponent(name)}; path=/; max-age=31536000; samesite=lax`
    : `${ACTOR_COOKIE}=; path=/; max-age=0; samesite=lax`;
}

/**
 * The handler's self-declared name (no auth yet): kept in localStorage and mirrored into the
 * `longhaul_actor` cookie, which the server reads as the actor of claims, decisions and undos.
 * Returns `[name, setName]`; `name` is "" until set (the server then says "operator").
 */
export function useHandlerName(): [string, (name: string) => void] {
  const [name, setNameState] = useState("");
  useEffect(() => {
    const stored = window.localStorage.getItem(STORAGE_KEY) ?? "";
    setNameState(stored);
    writeCookie(stored);
  }, []);
  const setName = (next: string) => {
    const clean = next.slice(0, 100);
    setNameState(clean);
    window.localStorage.setItem(STORAGE_KEY, clean.trim());
    writeCookie(clean.trim());
  };
  return [name, setName];
}

/** "Your name" field for the inbox header. */
export function HandlerNameField({ name, onChange }: { name: string; onChange: (name: string) => void }) {
  return (
    <label className="flex items-center gap-2 text-xs text-zinc-600">
      Your name
      <input
        className="w-32 rounded border border-zinc-300 px-2 py-1 text-sm text-zinc-900"
        value={name}
        maxLength={100}
        placeholder={DEFAULT_HANDLER}
        onChange={(e) => onChange(e.target.value)}
        title="Shown to other handlers on your claims and decisions (kept in this browser)"
      />
    </label>
  );
}

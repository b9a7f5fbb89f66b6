"use client";

import Link from "next/link";
import { useState } from "react";
import { useMe } from "./use-me.ts";

/** The sidebar's foot: who is signed in, their roles, Account (tokens) and Sign out. */
export function UserBox() {
  const me = useMe();
  const [busy, setBusy] = useState(false);
  if (!me.data) return null;
  const signOut = async () => {
    setBusy(true);
    await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).catch(() => undefined);
    window.location.href = "/sign-in";
  };
  return (
    <div className="border-t border-zinc-200 px-4 py-3 text-xs text-zinc-600" data-testid="user-box">
      <div className="font-medium text-zinc-900" data-testid="signed-in-as">
        {me.data.name}
      </div>
      <div>{me.data.roles.length ? me.data.roles.join(" · ") : "no role yet"}</div>
      <div className="mt-2 flex gap-3">
        <Link className="underline" href="/account">
          Account
        </Link>
        <button type="button" className="underline" disabled={busy} onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </div>
  );
}

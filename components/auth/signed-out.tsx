"use client";

import { useSyncExternalStore } from "react";

/**
 * "Signed out — sign in again": when an action (a mutation) is refused because the
 * session ended, the page stays as it is — a form keeps what was typed (the launch form also keeps
 * a draft in sessionStorage, components/tasks/launch/use-launch-draft.ts) — and this banner offers a
 * link to sign in and come back here. Queries still lead to the sign-in page (components/trpc.tsx).
 */
let signedOut = false;
const listeners = new Set<() => void>();

/** Marks the session as ended (the banner shows until an action succeeds again or the page is left). */
export function markSignedOut(): void {
  if (signedOut) return;
  signedOut = true;
  for (const l of listeners) l();
}

/** An action succeeded again (signed in in another tab): the banner goes. */
export function markSignedIn(): void {
  if (!signedOut) return;
  signedOut = false;
  for (const l of listeners) l();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The banner: nothing while signed in; a link to /sign-in?next=<this page> once an action was refused as signed out. */
export function SignedOutBanner() {
  const shown = useSyncExternalStore(
    subscribe,
    () => signedOut,
    () => false,
  );
  if (!shown) return null;
  const next = typeof window === "undefined" ? "/" : window.location.pathname + window.location.search;
  return (
    <div role="alert" data-testid="signed-out" className="fixed inset-x-0 top-0 z-50 bg-amber-100 px-4 py-2 text-center text-sm text-amber-950 shadow">
      Signed out — your session ended. What you typed is kept on this page.{" "}
      <a className="font-medium underline" href={`/sign-in?next=${encodeURIComponent(next)}`} target="_blank" rel="noopener">
        Sign in again
      </a>{" "}
      (in a new tab), then try again here.
    </div>
  );
}

"use client";

import { useEffect, useRef, useState, useSyncExternalStore } from "react";

/**
 * Browser notifications for a signed-in handler ("Escalations reach a person"): the nav's
 * inbox count (`open`, escalations that wait on this user; `undefined` while it loads) is watched, and
 * when it grows while the page is open a system notification says so — also when the tab is in the
 * background, which is where the badge is not seen. Nothing is shown for the count found at page load
 * (those were already waiting; the badge shows them). Uses the Web Notifications API
 * (https://notifications.spec.whatwg.org/): shown only with `Notification.permission === "granted"`;
 * permission is asked only from a click (browsers ignore or penalise requests without a user gesture).
 * One notification per tag, so a burst of escalations replaces rather than stacks.
 */
export function useEscalationNotifications(open: number | undefined): void {
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (open === undefined) return;
    const before = seen.current;
    seen.current = open;
    if (before === undefined || open <= before) return;
    if (typeof Notification === "undefined" || Notification.permission !== "granted") return;
    const added = open - before;
    const note = new Notification("Longhaul: an escalation waits on you", {
      body: `${added} new escalation${added === 1 ? "" : "s"}; ${open} open for you in the inbox.`,
      tag: "longhaul-escalations",
    });
    note.onclick = () => {
      window.focus();
      window.location.assign("/escalations");
    };
  }, [open]);
}

type Permission = NotificationPermission | "unsupported";

function permissionNow(): Permission {
  return typeof Notification === "undefined" ? "unsupported" : Notification.permission;
}

/**
 * Subscribes to changes of the notification permission: the Permissions API's `change` event (the
 * prompt answered, or the site settings changed in another tab) where the browser has it.
 */
function subscribePermission(onChange: () => void): () => void {
  let status: PermissionStatus | undefined;
  let gone = false;
  void navigator.permissions
    ?.query({ name: "notifications" })
    .then((s) => {
      if (gone) return;
      status = s;
      s.addEventListener("change", onChange);
    })
    .catch(() => {});
  return () => {
    gone = true;
    status?.removeEventListener("change", onChange);
  };
}

/**
 * The nav's "Notify me" control: a button while the browser has not been asked yet (asks on click),
 * a line saying notifications are on or blocked (blocked: the browser's site settings change it, a
 * page cannot ask again). Nothing where the browser has no Notification API (and on the server).
 */
export function NotifyToggle() {
  const permission = useSyncExternalStore(subscribePermission, permissionNow, (): Permission => "unsupported");
  const [answered, setAnswered] = useState<Permission | null>(null);
  const shown = answered ?? permission;
  if (shown === "unsupported") return null;
  if (shown === "default") {
    return (
      <button
        type="button"
        className="mx-3 mt-1 rounded-md px-2 py-1 text-left text-xs text-zinc-600 underline hover:text-zinc-900"
        onClick={() => void Notification.requestPermission().then((p) => setAnswered(p))}
      >
        Notify me of new escalations
      </button>
    );
  }
  return (
    <p className="mx-3 mt-1 px-2 text-xs text-zinc-500" role="status">
      {shown === "granted" ? "Browser notifications on" : "Notifications blocked in this browser's site settings"}
    </p>
  );
}

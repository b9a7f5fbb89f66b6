"use client";

import { useEffect, useEffectEvent, useState } from "react";

/** Where the launch form keeps its draft for this tab (sessionStorage: gone with the tab). */
export const LAUNCH_DRAFT_KEY = "longhaul:launch-draft";

/** What the launch form keeps of itself: the fields as typed (texts, not parsed values). */
export interface LaunchDraft {
  mode: "demo" | "goal";
  demoKind: "license-audit" | "mcp-audit";
  limit: string;
  goal: string;
  profile: string;
  budgets: { stepBudget: string; tokenBudget: string; costBudget: string };
  workspace: string;
  factsText: string;
  approvalChoice: boolean | null;
  /** The chosen launch template ("" = none) and the budgets its history suggested (null = none). */
  templateName: string;
  suggested: { stepBudget: string; tokenBudget: string; costBudget: string } | null;
  /** The form's launch key: a launch whose answer was lost, sent again, finds the first task. */
  launchKey: string;
}

/** The stored draft, or null when there is none or it is not a draft this version wrote (untrusted: sessionStorage is the user's). */
export function readLaunchDraft(raw: string | null): LaunchDraft | null {
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as Partial<LaunchDraft> | null;
    const str = (x: unknown) => typeof x === "string";
    if (!d || (d.mode !== "demo" && d.mode !== "goal") || (d.demoKind !== "license-audit" && d.demoKind !== "mcp-audit")) return null;
    if (![d.limit, d.goal, d.profile, d.workspace, d.factsText].every(str)) return null;
    const b = d.budgets;
    if (!b || ![b.stepBudget, b.tokenBudget, b.costBudget].every(str)) return null;
    if (d.approvalChoice !== null && typeof d.approvalChoice !== "boolean") return null;
    if (!str(d.templateName) || !str(d.launchKey) || d.launchKey === "") return null;
    const g = d.suggested;
    if (g !== null && (!g || ![g.stepBudget, g.tokenBudget, g.costBudget].every(str))) return null;
    return d as LaunchDraft;
  } catch {
    return null;
  }
}

/**
 * Keeps the launch form's fields in sessionStorage ("Back keeps the form"; a session that
 * ended keeps it too — sign in, come back, it is there). `restore` is called once after mount with
 * the stored draft (not during render: the server renders an empty form); `draft` is saved on every
 * change once restored; `clear()` after a successful launch. Off (`enabled` false) when the form
 * starts from a template link (the link says what to launch).
 */
export function useLaunchDraft(draft: LaunchDraft, restore: (d: LaunchDraft) => void, enabled: boolean): { clear: () => void } {
  // State, not a ref: the save below must not run in the commit that restores (it would store the
  // empty form over the draft before the restored one renders).
  const [ready, setReady] = useState(false);
  const onRestore = useEffectEvent(restore);
  useEffect(() => {
    if (ready) return;
    if (enabled) {
      const stored = readLaunchDraft(safeGet());
      if (stored) onRestore(stored);
    }
    setReady(true);
  }, [enabled, ready]);
  const json = JSON.stringify(draft);
  useEffect(() => {
    if (!ready || !enabled) return;
    try {
      window.sessionStorage.setItem(LAUNCH_DRAFT_KEY, json);
    } catch {
      // Storage full or disabled: the form still works, it is only not kept.
    }
  }, [json, enabled, ready]);
  return {
    clear: () => {
      try {
        window.sessionStorage.removeItem(LAUNCH_DRAFT_KEY);
      } catch {
        // as above
      }
    },
  };
}

function safeGet(): string | null {
  try {
    return window.sessionStorage.getItem(LAUNCH_DRAFT_KEY);
  } catch {
    return null;
  }
}

"use client";

import { useState, type ReactNode } from "react";
import type { ActionLine } from "@/components/ui/action-status.ts";
import { StatusLine } from "@/components/ui/use-action-status.tsx";
import { ConfirmDialog } from "@/components/ui/confirm-dialog.tsx";
import { describeCodeSource, SEED_SOURCE } from "@/lib/contracts/code-managed.ts";

const button = "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";

/**
 * The "managed as code" bar of a profile or MCP server row: `children` says where it comes from, then
 * "Detach from file…", asked first in the app's dialog saying what follows: it becomes editable
 * here, and its edits differ from the file until the file is applied again (or, from Longhaul's seed,
 * are undone at the next start). `onDetach` runs on Detach (`profile.detach` / `mcpServer.detach`,
 * idempotent); the button is off while `pending`; `line` is the detach's outcome, if shown here.
 */
export function ManagedAsCode({
  testId,
  kind,
  name,
  source,
  pending,
  copyHint,
  onDetach,
  line = null,
  children,
}: {
  testId: string;
  kind: "profile" | "MCP server";
  name: string;
  /** CodeManaged.source: a file's path, the seed or the API (lib/contracts/code-managed.ts). */
  source: string;
  pending: boolean;
  /** How to keep a changed copy of a seeded one instead ("use Copy instead"). */
  copyHint: string;
  onDetach: () => void;
  line?: ActionLine | null;
  children: ReactNode;
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="flex flex-wrap items-center gap-2 rounded bg-sky-50 px-2 py-1 text-xs text-sky-900" data-testid={testId}>
      <span>{children}</span>
      <button type="button" className={button} onClick={() => setConfirming(true)} disabled={pending}>
        Detach from file…
      </button>
      <ConfirmDialog
        open={confirming}
        title={`Detach ${kind} ${name} from ${describeCodeSource(source)}?`}
        description={
          source === SEED_SOURCE
            ? `You can then edit it here, but Longhaul's seed writes it again at the next start, undoing your edits. ${copyHint}`
            : "You can then edit it here, and its content will differ from the file. Applying the file again overwrites those edits and manages it as code again."
        }
        confirmLabel="Detach"
        onConfirm={() => {
          setConfirming(false);
          onDetach();
        }}
        onCancel={() => setConfirming(false)}
      />
      <StatusLine line={line} className="text-xs" />
    </div>
  );
}

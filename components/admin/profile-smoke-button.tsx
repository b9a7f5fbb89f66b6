"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { holdsAny, useMe } from "@/components/auth/use-me.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { Dialog, DialogClose } from "@/components/ui/dialog.tsx";

const button = "rounded border border-zinc-300 px-2 py-0.5 text-xs hover:bg-zinc-50 disabled:opacity-50";

/**
 * "Smoke test" on a profile that selects MCP servers: a dialog (read-only tools by default, a box for
 * side effects and open-world tools) that launches `profile.smoke` — a task on the offline smoke
 * model, not the profile's own — and opens its task page. One launch key per opening of the dialog,
 * so a double click launches once. Launching needs the operator role, as any launch does.
 */
export function ProfileSmokeButton({ profile, mcpServers }: { profile: string; mcpServers: number }) {
  const trpc = useTRPC();
  const router = useRouter();
  const me = useMe().data;
  const [open, setOpen] = useState(false);
  const [sideEffects, setSideEffects] = useState(false);
  const [launchKey, setLaunchKey] = useState("");
  const smoke = useMutation(trpc.profile.smoke.mutationOptions({ onSuccess: (r) => router.push(`/tasks/${r.taskId}`) }));
  if (mcpServers === 0) return null;
  const allowed = holdsAny(me?.roles, ["operator"]);
  return (
    <>
      <button
        type="button"
        className={button}
        disabled={!allowed}
        title={allowed ? "Call each of this profile's MCP tools once, offline" : "Launching a smoke test needs the operator role"}
        onClick={() => {
          setLaunchKey(`smoke-${crypto.randomUUID()}`);
          smoke.reset();
          setOpen(true);
        }}
      >
        Smoke test
      </button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title={`Smoke-test the MCP tools of "${profile}"?`}
        description="A task on the offline smoke model (not this profile's own model; no key, nothing billed) calls each tool once with arguments made from its input schema, through the ledger and the egress gate. Its page shows each tool's outcome, class and latency."
      >
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={sideEffects} onChange={(e) => setSideEffects(e.target.checked)} />
          Also call side-effecting and open-world tools (they will really run)
        </label>
        {smoke.error && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {smoke.error.message}
          </p>
        )}
        <div className="mt-3 flex justify-end gap-2">
          <DialogClose asChild>
            <button type="button" className="rounded border border-zinc-300 px-3 py-1.5 text-sm" autoFocus>
              Cancel
            </button>
          </DialogClose>
          <button
            type="button"
            className="rounded bg-zinc-900 px-3 py-1.5 text-sm text-white disabled:opacity-50"
            disabled={smoke.isPending}
            onClick={() => smoke.mutate({ name: profile, includeSideEffects: sideEffects, launchKey })}
          >
            {smoke.isPending ? "Starting…" : "Start smoke test"}
          </button>
        </div>
      </Dialog>
    </>
  );
}

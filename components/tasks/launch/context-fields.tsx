"use client";

import { cn } from "@/components/ui/cn.ts";
import { MAX_FACT_VALUE_BYTES, MAX_LAUNCH_FACTS, MAX_LAUNCH_FACTS_BYTES } from "@/lib/contracts/limits.ts";
import type { LaunchFormState } from "./use-launch-form.ts";
import { field, kib, label } from "./styles.ts";

/** Facts (a JSON object, with live counters against the launch limits), the workspace, and the approval switch. */
export function ContextFields({ f }: { f: LaunchFormState }) {
  const { v } = f;
  return (
    <>
      <div>
        <label htmlFor="facts" className={label}>
          Facts (optional)
        </label>
        <textarea
          id="facts"
          name="facts"
          rows={3}
          placeholder='{"region": "eu-west-1", "owner": "platform team"}'
          className={cn(field, "font-mono")}
          disabled={f.fromTemplate}
          value={f.factsText}
          onChange={(e) => f.setFactsText(e.target.value)}
          aria-invalid={!!v.factsError}
          aria-describedby="facts-help facts-count"
        />
        <p id="facts-help" className="mt-1 text-xs text-zinc-500">
          A JSON object of key → value: the working set the run starts from. Each value at most {kib(MAX_FACT_VALUE_BYTES)}; store large data as a file in the
          workspace and pass its path.
        </p>
        <p id="facts-count" data-testid="facts-count" className={cn("mt-1 text-xs", v.factsError ? "text-red-700" : "text-zinc-500")}>
          {v.usage.factCount.toLocaleString("en-US")} of {MAX_LAUNCH_FACTS.toLocaleString("en-US")} facts · {kib(v.usage.factsBytes)} of{" "}
          {kib(MAX_LAUNCH_FACTS_BYTES)} in all
          {v.usage.largestFact ? ` · largest "${v.usage.largestFact.key.slice(0, 40)}" ${kib(v.usage.largestFact.bytes)} of ${kib(MAX_FACT_VALUE_BYTES)}` : ""}
        </p>
        {v.factsError && (
          <p data-testid="field-error" className="mt-1 text-xs text-red-700">
            {v.factsError}
          </p>
        )}
      </div>

      <div>
        <label htmlFor="workspace" className={label}>
          Workspace
        </label>
        <input
          id="workspace"
          name="workspace"
          placeholder={f.demo?.workspace}
          className={cn(field, "font-mono")}
          disabled={f.fromTemplate}
          value={f.workspace}
          onChange={(e) => f.setWorkspace(e.target.value)}
        />
        <p className="mt-1 text-xs text-zinc-500">Folder on the server the file tools may read (read-only). Empty = the default shown.</p>
      </div>

      <div>
        <label className="flex items-center gap-2 text-sm font-medium text-zinc-800">
          <input type="checkbox" name="requireApproval" checked={f.requireApproval} onChange={(e) => f.setApprovalChoice(e.target.checked)} />
          Ask a human before risky actions (send_email)
        </label>
        <p className="mt-1 text-xs text-zinc-500">
          The run checkpoints and waits in the escalation inbox for Approve or Reject before the call. Default from the profile (
          {f.profileRequiresApproval ? "on" : "off"}).
        </p>
      </div>
    </>
  );
}

import { CheckCircle2, CircleDashed, CircleSlash, Hand, Loader2, OctagonX, Route } from "lucide-react";
import { cn } from "./cn.ts";

/** Status words and what they mean (icon + word + colour, never colour alone, so a status reads without colour vision). */
const statuses: Record<string, { label: string; className: string; Icon: typeof CheckCircle2; hint: string }> = {
  queued: { label: "Queued", className: "bg-zinc-100 text-zinc-700", Icon: CircleDashed, hint: "Waiting for the executor to start the run" },
  running: { label: "Running", className: "bg-blue-50 text-blue-800", Icon: Loader2, hint: "The agent is working" },
  waiting_for_human: { label: "Waiting on human", className: "bg-amber-50 text-amber-900", Icon: Hand, hint: "An escalation is open" },
  completed: { label: "Completed", className: "bg-emerald-50 text-emerald-800", Icon: CheckCircle2, hint: "Finished with a result" },
  dead_end: { label: "Dead end", className: "bg-violet-50 text-violet-800", Icon: Route, hint: "The agent showed the task cannot be done, and said why" },
  failed: { label: "Failed", className: "bg-red-50 text-red-800", Icon: OctagonX, hint: "Ended by an error" },
  cancelled: { label: "Cancelled", className: "bg-zinc-100 text-zinc-600", Icon: CircleSlash, hint: "Stopped by a person" },
  escalated: { label: "Escalated", className: "bg-amber-50 text-amber-900", Icon: Hand, hint: "Ended waiting for a human decision" },
};

export function StatusBadge({ status, className }: { status: string; className?: string }) {
  const s = statuses[status] ?? { label: status, className: "bg-zinc-100 text-zinc-700", Icon: CircleDashed, hint: status };
  const { Icon } = s;
  return (
    <span
      title={s.hint}
      data-status={status}
      className={cn("inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium", s.className, className)}
    >
      <Icon aria-hidden className={cn("h-3.5 w-3.5", status === "running" && "animate-spin")} />
      {s.label}
    </span>
  );
}

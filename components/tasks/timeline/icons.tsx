import { AlertTriangle, Bot, CheckCircle2, Flag, Loader2, User, Wrench, XCircle } from "lucide-react";

/** The step kind's icon (model, tool, human, else checkpoint), labelled with the kind. */
export function KindIcon({ kind }: { kind: string }) {
  const Icon = kind === "model" ? Bot : kind === "tool" ? Wrench : kind === "human" ? User : Flag;
  return <Icon aria-label={kind} className="h-4 w-4 shrink-0 text-zinc-500" />;
}

/** The step status's icon: running (or retrying, when a running step has an error), failed, completed. */
export function StatusIcon({ status, retrying }: { status: string; retrying: boolean }) {
  if (status === "running")
    return retrying ? (
      <AlertTriangle aria-label="retrying" className="h-4 w-4 text-amber-600" />
    ) : (
      <Loader2 aria-label="running" className="h-4 w-4 animate-spin text-blue-600 motion-reduce:animate-none" />
    );
  if (status === "failed") return <XCircle aria-label="failed" className="h-4 w-4 text-red-600" />;
  return <CheckCircle2 aria-label="completed" className="h-4 w-4 text-emerald-600" />;
}

import { cn } from "@/components/ui/cn.ts";

/** A step id as a button that selects that step on the timeline (`<runId>:<stepId>`); highlighted when `selected`. */
export function StepButton({
  runId,
  stepId,
  selected,
  onSelectStep,
}: {
  runId: string;
  stepId: string;
  selected: boolean;
  onSelectStep: (key: string) => void;
}) {
  return (
    <button
      type="button"
      data-testid="blame-step"
      data-step-id={stepId}
      aria-current={selected ? "true" : undefined}
      title="Select this step on the timeline"
      className={cn(
        "shrink-0 rounded px-1 font-mono text-xs underline decoration-dotted hover:bg-zinc-100 hover:text-zinc-900",
        selected ? "bg-blue-50 text-blue-900" : "text-zinc-600",
      )}
      onClick={() => onSelectStep(`${runId}:${stepId}`)}
    >
      {stepId}
    </button>
  );
}

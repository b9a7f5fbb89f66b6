import { cn } from "@/components/ui/cn.ts";
import { effortRuleLabel } from "@/lib/contracts/effort.ts";

const TONE: Record<string, string> = {
  low: "bg-zinc-100 text-zinc-700",
  medium: "bg-sky-100 text-sky-900",
  high: "bg-violet-100 text-violet-900",
};

/**
 * A model step's effort on its timeline row: the level and the model it ran on, the rule that chose
 * the level in the tooltip and for screen readers (the effort dial, lib/contracts/effort.ts).
 */
export function EffortBadge({ effort }: { effort: { level: string; model: string; rule: string } }) {
  const why = effortRuleLabel(effort.rule);
  return (
    <span
      className={cn("max-w-48 shrink-0 truncate rounded px-1.5 text-xs", TONE[effort.level] ?? TONE.low)}
      data-testid="effort-badge"
      data-effort-level={effort.level}
      data-effort-rule={effort.rule}
      title={`Effort ${effort.level} on ${effort.model}: ${why}`}
      aria-label={`effort ${effort.level}, model ${effort.model}, because: ${why}`}
    >
      {effort.level} · {effort.model}
    </span>
  );
}

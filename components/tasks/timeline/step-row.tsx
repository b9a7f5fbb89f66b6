import type React from "react";
import { cn } from "@/components/ui/cn.ts";
import { factCountLabel } from "../fact-value.tsx";
import { compactNumber, durationMs, usd } from "../format.ts";
import { isDeduplicated, type TimelineItem } from "../step-filter.ts";
import { KindIcon, StatusIcon } from "./icons.tsx";
import type { StepFactCounts, TimelineStep } from "./types.ts";

type StepItem = Extract<TimelineItem<TimelineStep>, { type: "step" }>;

/**
 * One step's row, a list item button that selects it: position, kind and status icons, step id,
 * summary, badges (MCP server, deduplicated side effect, working-set changes `facts`, attempts),
 * tokens, cost and duration.
 */
export function StepRow({
  item,
  selected,
  facts,
  style,
  onSelect,
}: {
  item: StepItem;
  selected: boolean;
  facts: StepFactCounts | undefined;
  style: React.CSSProperties;
  onSelect: (key: string) => void;
}) {
  const s = item.step;
  const tokens = s.promptTokens + s.completionTokens;
  return (
    <button
      type="button"
      role="listitem"
      data-step-id={s.stepId}
      data-run-id={s.runId}
      data-status={s.status}
      data-kind={s.kind}
      aria-current={selected ? "true" : undefined}
      onClick={() => onSelect(item.key)}
      className={cn(
        "absolute left-0 flex w-full items-center gap-3 border-b border-zinc-100 px-4 text-left text-sm hover:bg-zinc-50",
        item.inFold && "border-l-4 border-l-amber-200",
        selected && "bg-blue-50 hover:bg-blue-50",
      )}
      style={style}
    >
      <span className="w-10 shrink-0 text-right font-mono text-xs text-zinc-400 tabular-nums">{item.position}</span>
      <KindIcon kind={s.kind} />
      <StatusIcon status={s.status} retrying={s.status === "running" && !!s.error} />
      <span className="w-20 shrink-0 truncate font-mono text-xs text-zinc-500" title={s.stepId}>
        {s.stepId}
      </span>
      <span className={cn("min-w-0 flex-1 truncate", s.status === "failed" && "text-red-800")} title={s.summary} data-testid="step-summary">
        {s.summary || s.tool || s.kind}
      </span>
      {s.tool?.includes("__") && (
        <span className="shrink-0 rounded bg-violet-100 px-1.5 text-xs text-violet-900" data-testid="mcp-server" title="A tool of this MCP server">
          MCP · {s.tool.slice(0, s.tool.indexOf("__"))}
        </span>
      )}
      {isDeduplicated(s) && (
        <span
          className="shrink-0 rounded bg-sky-100 px-1.5 text-xs text-sky-900"
          title="A repeat of a committed side effect: the original result was returned and nothing was sent again"
        >
          deduplicated
        </span>
      )}
      {facts && (
        <span
          className={cn(
            "shrink-0 rounded px-1.5 text-xs",
            facts.removed ? "bg-red-50 text-red-800" : facts.changed ? "bg-amber-50 text-amber-900" : "bg-emerald-50 text-emerald-800",
          )}
          data-testid="fact-mark"
          title="Working-set changes this step caused (details in the Step and Working set tabs)"
        >
          {factCountLabel(facts)}
        </span>
      )}
      {s.attempts > 1 && <span className="shrink-0 rounded bg-amber-100 px-1.5 text-xs text-amber-900">{s.attempts} attempts</span>}
      {/* Tokens only where there is room (they are in the Step tab too): below 1536 px the summary needs the width. */}
      {tokens > 0 && <span className="hidden w-14 shrink-0 text-right text-xs text-zinc-500 tabular-nums 2xl:inline">{compactNumber(tokens)} tok</span>}
      {s.costUsd > 0 && <span className="w-14 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{usd(s.costUsd)}</span>}
      <span className="w-16 shrink-0 text-right text-xs text-zinc-500 tabular-nums">{durationMs(s.durationMs)}</span>
    </button>
  );
}

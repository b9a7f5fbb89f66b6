"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";
import { useTRPC } from "@/components/trpc.tsx";
import type { CostFilters } from "@/server/domain/cost-rollup.ts";
import { BreakdownTable } from "./breakdown-table.tsx";

type Rollup = inferRouterOutputs<AppRouter>["cost"]["rollup"];

export const GROUP_BY = ["profile", "model", "template"] as const;
export type GroupBy = (typeof GROUP_BY)[number];
const GROUP_LABEL: Record<GroupBy, string> = { profile: "Agent profile", model: "Model", template: "Launch template" };

/**
 * The /costs group-by control (issue 17: "group by launch template, so like is compared with
 * like"): one breakdown table grouped by profile, model (both from the rollup already loaded) or
 * launch template (cost.byTemplate, asked only when chosen; "" = tasks launched without one).
 */
export function CostGroupBy({ r, filters, tasksHref }: { r: Rollup; filters: CostFilters; tasksHref: (f: Record<string, string>) => string }) {
  const trpc = useTRPC();
  const [by, setBy] = useState<GroupBy>("template");
  const byTemplate = useQuery({ ...trpc.cost.byTemplate.queryOptions(filters), enabled: by === "template", placeholderData: (prev) => prev });
  const groups = by === "profile" ? r.byProfile : by === "model" ? r.byModel : (byTemplate.data ?? []);
  return (
    <section aria-label="Grouped spend" className="mb-6">
      <div className="mb-2 flex items-center gap-2">
        <label htmlFor="cost-group-by" className="text-sm font-medium text-zinc-800">
          Group by
        </label>
        <select
          id="cost-group-by"
          className="rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm"
          value={by}
          onChange={(e) => setBy(e.target.value as GroupBy)}
        >
          {GROUP_BY.map((g) => (
            <option key={g} value={g}>
              {GROUP_LABEL[g]}
            </option>
          ))}
        </select>
        {by === "template" && byTemplate.isError && <span className="text-xs text-red-700">{byTemplate.error.message}</span>}
      </div>
      <BreakdownTable
        title={`By ${GROUP_LABEL[by].toLowerCase()}`}
        testId={`group-by-${by}`}
        groups={groups}
        label={(k) => (by === "template" && k === "" ? "(no template)" : k)}
        href={(k) => (by === "template" ? tasksHref({}) : tasksHref({ [by]: k }))}
        empty={by === "template" ? "No tasks in scope." : undefined}
      />
    </section>
  );
}

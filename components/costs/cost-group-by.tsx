"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";
import { useTRPC } from "@/components/trpc.tsx";
import { Field } from "@/components/ui/field.tsx";
import { Select } from "@/components/ui/select.tsx";
import type { CostFilters } from "@/server/features/costs/index.ts";
import { BreakdownTable } from "./breakdown-table.tsx";

type Rollup = inferRouterOutputs<AppRouter>["cost"]["rollup"];

export const GROUP_BY = ["profile", "model", "template", "case"] as const;
export type GroupBy = (typeof GROUP_BY)[number];
const GROUP_LABEL: Record<GroupBy, string> = { profile: "Agent profile", model: "Model", template: "Launch template", case: "Eval case" };
const NONE: Partial<Record<GroupBy, string>> = { template: "(no template)", case: "(not an eval cell)" };

/**
 * The /costs group-by control ("group by launch template, so like is compared with
 * like"): one breakdown table grouped by profile, model (both from the rollup already loaded),
 * launch template (cost.byTemplate; "" = tasks launched without one) or eval suite case
 * (cost.byCase, key `suite/case`; "" = tasks that are no eval cell) — each asked only when chosen.
 */
export function CostGroupBy({ r, filters, tasksHref }: { r: Rollup; filters: CostFilters; tasksHref: (f: Record<string, string>) => string }) {
  const trpc = useTRPC();
  const [by, setBy] = useState<GroupBy>("template");
  const byTemplate = useQuery({ ...trpc.cost.byTemplate.queryOptions(filters), enabled: by === "template", placeholderData: (prev) => prev });
  const byCase = useQuery({ ...trpc.cost.byCase.queryOptions(filters), enabled: by === "case", placeholderData: (prev) => prev });
  const launchGroup = by === "template" ? byTemplate : by === "case" ? byCase : null;
  const groups = by === "profile" ? r.byProfile : by === "model" ? r.byModel : (launchGroup?.data ?? []);
  return (
    <section aria-label="Grouped spend" className="mb-6">
      <div className="mb-2 flex items-end gap-2">
        <Field label="Group by">
          <Select value={by} onChange={(e) => setBy(e.target.value as GroupBy)} options={GROUP_BY.map((g) => [g, GROUP_LABEL[g]] as const)} />
        </Field>
        {launchGroup?.isError && <span className="pb-2 text-xs text-red-700">{launchGroup.error.message}</span>}
      </div>
      <BreakdownTable
        title={`By ${GROUP_LABEL[by].toLowerCase()}`}
        testId={`group-by-${by}`}
        groups={groups}
        label={(k) => (k === "" ? (NONE[by] ?? k) : k)}
        href={(k) => (launchGroup ? tasksHref({}) : tasksHref({ [by]: k }))}
        empty={launchGroup ? "No tasks in scope." : undefined}
      />
    </section>
  );
}

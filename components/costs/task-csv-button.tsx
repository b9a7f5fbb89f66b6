"use client";

import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import type { CostFilters } from "@/server/features/costs/index.ts";
import { useTRPC } from "../trpc.tsx";
import { downloadCsv } from "./download-csv.ts";

/**
 * "Download per-task CSV": one row per task in scope of the page's filters (cost.taskCsv — task
 * id, launch time, profile, model, outcome, failure class, steps, tokens, cost, waste), saved as
 * `<name>-tasks.csv`. Fetched on click (not with the page): the file can be long.
 */
export function TaskCsvButton({ filters, name }: { filters: CostFilters; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setPending(true);
    setError(null);
    try {
      const { csv } = await queryClient.fetchQuery({ ...trpc.cost.taskCsv.queryOptions(filters), staleTime: 0 });
      downloadCsv(csv, name.replace(/\.csv$/, "-tasks.csv"));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setPending(false);
    }
  };
  return (
    <span className="flex items-center gap-2">
      <button
        type="button"
        onClick={() => void download()}
        disabled={pending}
        className="rounded-md border border-zinc-300 px-3 py-1 text-sm font-medium hover:bg-zinc-100 disabled:opacity-50"
      >
        {pending ? "Preparing per-task CSV…" : "Download per-task CSV"}
      </button>
      {error && (
        <span role="alert" className="text-xs text-red-700">
          {error}
        </span>
      )}
    </span>
  );
}

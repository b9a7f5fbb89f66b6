"use client";

import Link from "next/link";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root.ts";
import { downloadCsv } from "./download-csv.ts";
import { TaskCsvButton } from "./task-csv-button.tsx";

type Rollup = inferRouterOutputs<AppRouter>["cost"]["rollup"];

/**
 * Outcomes by profile and model: the server's table (the same cells as its CSV), the task and
 * completed counts and the cost per completed task linking to those tasks, Download CSV (the table
 * as data: plain numbers) and Download per-task CSV (one row per task).
 */
export function OutcomesTable({ r, tasksHref, csvName }: { r: Rollup; tasksHref: (extra?: Record<string, string | undefined>) => string; csvName: string }) {
  return (
    <section aria-label="Outcomes by profile and model" className="mb-6 min-w-0 rounded-lg border border-zinc-200 bg-white">
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-4 py-3">
        <h2 className="text-sm font-semibold">Outcomes by profile and model</h2>
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            onClick={() => downloadCsv(r.outcomeCsv, csvName)}
            className="rounded-md border border-zinc-300 px-3 py-1 text-sm font-medium hover:bg-zinc-100"
          >
            Download CSV
          </button>
          <TaskCsvButton filters={r.filters} name={csvName} />
        </div>
      </div>
      <div className="overflow-x-auto">
        <table className="w-full text-sm" data-testid="outcomes-table">
          <thead className="bg-zinc-50 text-left text-xs text-zinc-600">
            <tr>
              {r.outcomeTable.header.map((col) => (
                <th key={col} scope="col" className="px-3 py-2 font-medium">
                  {col}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {r.outcomeTable.rows.map((cells, i) => {
              const row = r.outcomes[i]!;
              const href = tasksHref({ profile: row.profile, model: row.model });
              return (
                <tr key={`${row.profile}/${row.model}`} className="border-t border-zinc-100">
                  {cells.map((cell, j) => (
                    <td key={j} className={"px-3 py-2 " + (j >= 2 ? "tabular-nums" : "[overflow-wrap:anywhere]")}>
                      {j === 2 || j === 3 || j === 8 ? (
                        <Link
                          className="text-blue-700 underline-offset-2 hover:underline"
                          href={j === 2 ? href : tasksHref({ profile: row.profile, model: row.model, outcome: "completed" })}
                        >
                          {cell}
                        </Link>
                      ) : (
                        cell
                      )}
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

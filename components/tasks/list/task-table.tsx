"use client";

import { flexRender, getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer, type Virtualizer } from "@tanstack/react-virtual";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn.ts";
import { useHydrated } from "@/components/ui/use-hydrated.ts";
import { isTypingOrModified } from "../run/use-step-keys.ts";
import { columns, TABLE_WIDTH, type TaskRow } from "./task-columns.tsx";
import type { TaskSelection } from "./use-task-selection.ts";

/** Width of the selection column (px). */
const SELECT_WIDTH = 36;

const ROW_HEIGHT = 60;

/** j/k move the selection through the list (scrolling it into view), Enter opens the selected task. */
function useListKeys(rows: readonly TaskRow[], virtualizer: Virtualizer<HTMLDivElement, Element>) {
  const router = useRouter();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selectedIndex = selectedId ? rows.findIndex((r) => r.id === selectedId) : -1;
  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (isTypingOrModified(e) || rows.length === 0) return;
      const target = e.target as HTMLElement | null;
      if (e.key === "j" || e.key === "k") {
        const next = selectedIndex < 0 ? 0 : e.key === "j" ? Math.min(rows.length - 1, selectedIndex + 1) : Math.max(0, selectedIndex - 1);
        setSelectedId(rows[next]!.id);
        virtualizer.scrollToIndex(next, { align: "auto" });
        e.preventDefault();
      } else if (e.key === "Enter" && selectedIndex >= 0 && !(target && ["A", "BUTTON"].includes(target.tagName))) {
        e.preventDefault();
        router.push(`/tasks/${rows[selectedIndex]!.id}`);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [rows, selectedIndex, virtualizer, router]);
  return { selectedId, setSelectedId };
}

/**
 * The task table: as wide as its columns (the goal takes what is left), scrolling sideways inside
 * itself, never the page; rows virtualised (fixed height); `onNearEnd` asks for the next page when
 * the last 20 rows come into view. With `selection` (people who may resume or cancel), a first column
 * of checkboxes ticks tasks for the bulk-action bar; its header ticks every loaded row.
 */
export function TaskTable({
  rows,
  total,
  onNearEnd,
  fetchingMore,
  selection,
}: {
  rows: TaskRow[];
  total: number;
  onNearEnd: () => void;
  fetchingMore: boolean;
  selection?: TaskSelection;
}) {
  // Marks the table once the browser has taken over the server's HTML (bench:ui times it).
  const hydrated = useHydrated();
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel(), getRowId: (r) => r.id });
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    // Before it can measure (the server's render and the browser's hydration of it), the list assumes a
    // 900 px tall box, so the page's HTML holds the first rows; the real size is measured right after.
    initialRect: { width: 1280, height: 900 },
  });
  const items = virtualizer.getVirtualItems();
  const lastItem = items.at(-1);
  useEffect(() => {
    if (lastItem && lastItem.index >= rows.length - 20) onNearEnd();
  }, [lastItem, rows.length, onNearEnd]);
  const { selectedId, setSelectedId } = useListKeys(rows, virtualizer);
  const padTop = items[0]?.start ?? 0;
  const padBottom = lastItem ? virtualizer.getTotalSize() - lastItem.end : 0;
  const tableRows = table.getRowModel().rows;
  const span = columns.length + (selection ? 1 : 0);
  const isTicked = (id: string) => !!selection && (selection.allMatching || selection.ids.has(id));
  const allTicked = !!selection && rows.length > 0 && rows.every((r) => isTicked(r.id));

  return (
    <div
      ref={scrollRef}
      className="min-h-0 flex-1 overflow-auto rounded-lg border border-zinc-200 bg-white"
      data-testid="task-table-scroll"
      data-interactive={hydrated ? "true" : undefined}
    >
      <table className="w-full table-fixed text-sm" style={{ minWidth: TABLE_WIDTH + (selection ? SELECT_WIDTH : 0) }} aria-rowcount={total}>
        <colgroup>
          {selection && <col style={{ width: SELECT_WIDTH }} />}
          {table.getFlatHeaders().map((h) => (
            // The goal column takes whatever width is left beyond the others' (at least its own size, via the table's min width).
            <col key={h.id} style={h.id === "goal" ? undefined : { width: h.getSize() }} />
          ))}
        </colgroup>
        <thead className="sticky top-0 z-10 bg-zinc-50 text-left text-xs tracking-wide text-zinc-500 uppercase shadow-[0_1px_0_var(--color-zinc-200)]">
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {selection && (
                <th scope="col" className="px-3 py-2">
                  <input
                    type="checkbox"
                    aria-label="Select every loaded task"
                    checked={allTicked}
                    onChange={(e) =>
                      selection.setMany(
                        rows.map((r) => r.id),
                        e.target.checked,
                      )
                    }
                  />
                </th>
              )}
              {g.headers.map((h) => (
                <th key={h.id} scope="col" className="truncate px-3 py-2 font-medium whitespace-nowrap">
                  {flexRender(h.column.columnDef.header, h.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden>
              <td colSpan={span} style={{ height: padTop }} />
            </tr>
          )}
          {items.map((item) => {
            const row = tableRows[item.index];
            if (!row) return null;
            return (
              <tr
                key={row.id}
                data-task-id={row.id}
                aria-selected={row.id === selectedId}
                onClick={() => setSelectedId(row.id)}
                className={cn(
                  "border-b border-zinc-100 align-top hover:bg-zinc-50",
                  row.id === selectedId && "bg-sky-50 shadow-[inset_3px_0_0_var(--color-sky-600)] hover:bg-sky-50",
                )}
                style={{ height: ROW_HEIGHT }}
              >
                {selection && (
                  <td className="px-3 py-2">
                    <input
                      type="checkbox"
                      aria-label={`Select task ${row.id}`}
                      checked={isTicked(row.id)}
                      disabled={selection.allMatching}
                      onChange={() => selection.toggle(row.id)}
                      onClick={(e) => e.stopPropagation()}
                    />
                  </td>
                )}
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className="overflow-hidden px-3 py-2">
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden>
              <td colSpan={span} style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
      {fetchingMore && <p className="px-4 py-2 text-xs text-zinc-500">Loading more…</p>}
    </div>
  );
}

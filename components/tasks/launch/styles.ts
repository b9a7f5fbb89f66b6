/** The launch form's control and label look (one place for its panels). */
export const field =
  "mt-1 block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm shadow-sm focus:border-zinc-900 focus:outline-none focus:ring-1 focus:ring-zinc-900";
export const label = "block text-sm font-medium text-zinc-800";

/** Bytes as the counters print them: "512 B", "14.2 KiB", "1 MiB". */
export function kib(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${Number((bytes / 1024 / 1024).toFixed(2))} MiB`;
}

"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { cn } from "@/components/ui/cn.ts";

/** The sections of /admin, in the order of the nav; the first is shown when the URL names none. */
export const ADMIN_SECTIONS = [
  { id: "users", label: "Users" },
  { id: "tokens", label: "API tokens" },
  { id: "profiles", label: "Agent profiles" },
  { id: "mcp", label: "MCP servers" },
  { id: "audit", label: "Audit log" },
] as const;

/** One section id of {@link ADMIN_SECTIONS}. */
export type AdminSection = (typeof ADMIN_SECTIONS)[number]["id"];

/** The section the URL names (`/admin?section=audit`), or "users" for none or an unknown one. */
export function useAdminSection(): AdminSection {
  const wanted = useSearchParams().get("section");
  return ADMIN_SECTIONS.find((s) => s.id === wanted)?.id ?? "users";
}

/**
 * The admin page's section nav: one link per section (`?section=<id>`, so a section can be linked,
 * reloaded and reached with Back), the current one marked `aria-current="page"`. Plain links: Tab
 * reaches each, Enter opens it.
 */
export function AdminSectionNav({ current }: { current: AdminSection }) {
  return (
    <nav aria-label="Admin sections" className="flex flex-wrap gap-1 border-b border-zinc-200">
      {ADMIN_SECTIONS.map((s) => (
        <Link
          key={s.id}
          href={`/admin?section=${s.id}`}
          scroll={false}
          aria-current={current === s.id ? "page" : undefined}
          className={cn(
            "-mb-px rounded-t border border-transparent px-3 py-1.5 text-sm text-zinc-600 hover:text-zinc-900",
            current === s.id && "border-zinc-200 border-b-white bg-white font-medium text-zinc-900",
          )}
        >
          {s.label}
        </Link>
      ))}
    </nav>
  );
}

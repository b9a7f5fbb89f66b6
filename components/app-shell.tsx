"use client";

import { Menu, X } from "lucide-react";
import { useEffect, useState, type ReactNode } from "react";
import { cn } from "./ui/cn.ts";
import { ActionScope } from "./ui/use-action-status.tsx";

/**
 * The page frame: a skip-to-content link (the first stop of the Tab key), the sidebar (`sidebar`:
 * brand, nav, user box) and the page (`children`, in `<main id="main">`). Below 1024 px the sidebar
 * collapses to a 48 px rail with a Menu button that opens it over the page; a link in it, Escape or
 * a click beside it closes it again. The page is one ActionScope: an action started on it takes
 * every older action's status line away.
 */
export function AppShell({ sidebar, children }: { sidebar: ReactNode; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
  return (
    <div className="flex min-h-screen">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <div className="flex w-12 shrink-0 flex-col items-center border-r border-zinc-200 bg-white py-3 lg:hidden">
        <button
          type="button"
          className="rounded-md p-2 text-zinc-700 hover:bg-zinc-100"
          aria-label={open ? "Close the menu" : "Open the menu"}
          aria-expanded={open}
          aria-controls="sidebar"
          onClick={() => setOpen((o) => !o)}
        >
          {open ? <X aria-hidden className="h-5 w-5" /> : <Menu aria-hidden className="h-5 w-5" />}
        </button>
      </div>
      {open && <div className="fixed inset-0 z-30 bg-zinc-900/30 lg:hidden" aria-hidden onClick={() => setOpen(false)} />}
      <aside
        id="sidebar"
        aria-label="Sidebar"
        className={cn(
          "flex w-52 shrink-0 flex-col border-r border-zinc-200 bg-white",
          "max-lg:fixed max-lg:inset-y-0 max-lg:left-12 max-lg:z-40 max-lg:shadow-xl",
          !open && "max-lg:hidden",
        )}
        onClick={(e) => {
          if ((e.target as HTMLElement).closest("a")) setOpen(false);
        }}
      >
        {sidebar}
      </aside>
      <main id="main" tabIndex={-1} className="min-w-0 flex-1 focus:outline-none">
        <ActionScope>{children}</ActionScope>
      </main>
    </div>
  );
}

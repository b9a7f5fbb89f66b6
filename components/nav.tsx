"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn } from "./ui/cn.ts";

const items = [
  { href: "/tasks", label: "Tasks" },
  { href: "/tasks/new", label: "Launch task" },
];

export function Nav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex flex-col gap-1 p-3">
      {items.map((item) => {
        const active = item.href === "/tasks" ? pathname === "/tasks" || (pathname.startsWith("/tasks/") && pathname !== "/tasks/new") : pathname === item.href;
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={cn(
              "rounded-md px-3 py-2 text-sm font-medium text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900",
              active && "bg-zinc-900 text-white hover:bg-zinc-800 hover:text-white",
            )}
          >
            {item.label}
          </Link>
        );
      })}
    </nav>
  );
}

"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTRPC } from "./trpc.tsx";
import { cn } from "./ui/cn.ts";

const items = [
  { href: "/tasks", label: "Tasks" },
  { href: "/tasks/new", label: "Launch task" },
  { href: "/escalations", label: "Escalations" },
  { href: "/costs", label: "Costs" },
];

export function Nav() {
  const pathname = usePathname();
  const trpc = useTRPC();
  const escalations = useQuery({ ...trpc.escalation.list.queryOptions({ status: "open" }), refetchInterval: 10_000 });
  const open = escalations.data?.length ?? 0;
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
            {item.href === "/escalations" && open > 0 && (
              <span className="ml-2 rounded-full bg-amber-500 px-1.5 text-xs font-semibold text-white" aria-label={`${open} open`}>
                {open}
              </span>
            )}
          </Link>
        );
      })}
    </nav>
  );
}

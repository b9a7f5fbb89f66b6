"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { Role } from "@/lib/contracts/roles.ts";
import { holdsAny, useMe } from "./auth/use-me.ts";
import { isDatabaseUnavailable } from "./ui/api-error.ts";
import { NotifyToggle, useEscalationNotifications } from "./escalations/use-escalation-notifications.tsx";
import { useTRPC } from "./trpc.tsx";
import { cn } from "./ui/cn.ts";
import { TimeZoneSwitch } from "./ui/timestamp.tsx";

const ALL_ROLES: Role[] = ["operator", "handler", "manager", "admin"];

/** Nav entries and the roles that may use each page (none = any role); the nav shows only the caller's. */
const items: { href: string; label: string; roles: Role[] }[] = [
  { href: "/tasks", label: "Tasks", roles: [] },
  { href: "/tasks/new", label: "Launch task", roles: ["operator"] },
  { href: "/escalations", label: "Escalations", roles: ["handler"] },
  { href: "/costs", label: "Costs", roles: ["manager"] },
  { href: "/evals", label: "Evals", roles: [] },
  { href: "/admin", label: "Admin", roles: ["admin"] },
];

export function Nav() {
  const pathname = usePathname();
  const trpc = useTRPC();
  const me = useMe();
  // While the session cannot be read because the database is not answering, the nav keeps every
  // entry (the pages say what is wrong; the API still checks the roles) instead of vanishing.
  const outage = me.isError && isDatabaseUnavailable(me.error);
  const roles = outage ? ALL_ROLES : me.data?.roles;
  const inbox = useQuery({ ...trpc.escalation.inboxCount.queryOptions(), refetchInterval: 10_000, enabled: holdsAny(roles, ["handler"]) });
  const open = inbox.data?.open ?? 0;
  const overdue = inbox.data?.overdue ?? 0;
  const handler = holdsAny(roles, ["handler"]);
  useEscalationNotifications(handler ? inbox.data?.open : undefined);
  return (
    <nav aria-label="Main" className="flex flex-col gap-1 p-3">
      {items
        .filter((item) => holdsAny(roles, item.roles))
        .map((item) => {
          const active =
            item.href === "/tasks" ? pathname === "/tasks" || (pathname.startsWith("/tasks/") && pathname !== "/tasks/new") : pathname === item.href;
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
                <span
                  className={cn("ml-2 rounded-full px-1.5 text-xs font-semibold text-white", overdue > 0 ? "bg-red-600" : "bg-amber-500")}
                  aria-label={`${open} open for you${overdue > 0 ? `, ${overdue} overdue` : ""}`}
                  title={`${open} open escalation(s) waiting on you${overdue > 0 ? `, ${overdue} overdue` : ""}`}
                >
                  {open}
                </span>
              )}
            </Link>
          );
        })}
      {handler && <NotifyToggle />}
      <div className="mt-4 flex items-center gap-2 px-3 text-xs text-zinc-500">
        Times <TimeZoneSwitch />
      </div>
    </nav>
  );
}

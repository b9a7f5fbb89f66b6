"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The id in `/tasks/<id>`, URL-decoded (the raw segment when it is not valid percent-encoding). */
function taskIdFrom(pathname: string | null): string {
  const segment = (pathname ?? "").split("/").filter(Boolean)[1] ?? "";
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `/tasks/<unknown>`: answered with HTTP 404 (the page calls notFound()), naming the id it looked for. */
export default function TaskNotFound() {
  const id = taskIdFrom(usePathname());
  return (
    <div className="p-8" data-testid="task-not-found">
      <h1 className="text-xl font-semibold">Task not found</h1>
      <p className="mt-2 text-sm text-zinc-600">
        There is no task with the id <code className="break-all rounded bg-zinc-100 px-1 font-mono">{id || "(empty)"}</code>. It may have been mistyped, or it
        belongs to another Longhaul.
      </p>
      <p className="mt-4 text-sm">
        <Link className="underline" href="/tasks">
          All tasks
        </Link>{" "}
        ·{" "}
        <Link className="underline" href="/tasks/new">
          Launch a task
        </Link>
      </p>
    </div>
  );
}

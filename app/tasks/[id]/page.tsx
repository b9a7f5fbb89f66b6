import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { preload } from "react-dom";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { RunPage } from "@/components/tasks/run-page.tsx";
import { MAX_ID_CHARS, plausibleId } from "@/lib/contracts/limits.ts";

export const dynamic = "force-dynamic";

/**
 * Whether the task exists, asked of this app's own API (pages import nothing from server/ but types):
 * `task.get` answering 404 (unknown) or 400 (not an id at all) means no such task. Any other answer
 * — the API down, a 5xx — renders the page, which shows that error itself.
 */
async function taskMissing(id: string): Promise<boolean> {
  const h = await headers();
  const input = encodeURIComponent(JSON.stringify({ json: { taskId: id } }));
  try {
    const res = await fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/api/trpc/task.get?input=${input}`, {
      cache: "no-store",
      headers: { cookie: h.get("cookie") ?? "", authorization: h.get("authorization") ?? "" },
      signal: AbortSignal.timeout(5_000),
    });
    return res.status === 404 || res.status === 400;
  } catch {
    return false;
  }
}

/** `decodeURIComponent`, or the text as is when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  // Not an id at all (e.g. 10 kB long): 404 at once, before the preload header and the API call
  // carry it (a 10 kB id hung 85 s, then 408 — issue 18).
  if (id.length > 3 * MAX_ID_CHARS || !plausibleId(decoded(id))) notFound();
  // The step list is the page's biggest request: the browser fetches it while the scripts load, and
  // the run page's tRPC query (the same GET URL: httpLink, superjson input {json: {taskId}}) finds it ready.
  preload(`/api/trpc/task.steps?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`, { as: "fetch", crossOrigin: "anonymous" });
  if (await taskMissing(decoded(id))) notFound();
  return (
    <RoleGate needs={[]} what="A task's run page">
      <Suspense>
        <RunPage taskId={id} />
      </Suspense>
    </RoleGate>
  );
}

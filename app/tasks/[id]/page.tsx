import { TRPCError } from "@trpc/server";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import { preload } from "react-dom";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { RunPage } from "@/components/tasks/run-page.tsx";
import { plausibleId } from "@/lib/contracts/limits.ts";
import { serverCaller } from "@/server/api/server-caller.ts";

export const dynamic = "force-dynamic";

/**
 * Whether the task surely does not exist: not an id at all (too long, blank, other characters —
 * answered at once, before any query; a 10 kB id hung 85 s, then 408 — issue 18), or `task.get` — called in-process through the server caller, with this request's
 * credentials — refusing it as unknown (NOT_FOUND) or as not an id at all (BAD_REQUEST). Any other
 * answer (not signed in, the database down) renders the page, which shows that state itself.
 */
async function taskMissing(id: string): Promise<boolean> {
  if (!plausibleId(id)) return true;
  try {
    await (await serverCaller()).task.get({ taskId: id });
    return false;
  } catch (error) {
    return error instanceof TRPCError && (error.code === "NOT_FOUND" || error.code === "BAD_REQUEST");
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
  if (await taskMissing(decoded(id))) notFound();
  // The step list is the page's biggest request: the browser fetches it while the scripts load, and
  // the run page's tRPC query (the same GET URL: httpLink, superjson input {json: {taskId}}) finds it ready.
  preload(`/api/trpc/task.steps?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`, { as: "fetch", crossOrigin: "anonymous" });
  return (
    <RoleGate needs={[]} what="A task's run page">
      <Suspense>
        <RunPage taskId={id} />
      </Suspense>
    </RoleGate>
  );
}

import { HydrationBoundary } from "@tanstack/react-query";
import { TRPCError } from "@trpc/server";
import { notFound } from "next/navigation";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { RunPage } from "@/components/tasks/run-page.tsx";
import { FIRST_STEPS } from "@/components/tasks/run/first-steps.ts";
import { plausibleId } from "@/lib/contracts/limits.ts";
import { prefetchedState, serverQueryClient, serverTrpc } from "@/server/api/server-caller.ts";

export const dynamic = "force-dynamic";

/** `decodeURIComponent`, or the text as is when it is not valid percent-encoding. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The run page, its first view rendered here: the signed-in user, the task and its newest
 * {@link FIRST_STEPS} steps are asked in-process, at once, and sent with the page (so the header and
 * the newest rows are in the HTML and the browser does not ask for them again); the longer step list
 * loads in the browser afterwards. Not found — not an id at all (too long, blank, other characters:
 * answered before any query; a 10 kB id once hung 85 s before a 408), or `task.get` refusing it as
 * unknown (NOT_FOUND) or not an id (BAD_REQUEST) — is the 404 page. Any other failure (not signed
 * in, the database down) renders the page, which shows that state itself.
 */
export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!plausibleId(decoded(id))) notFound();
  const queries = serverQueryClient();
  const [task] = await Promise.allSettled([
    serverTrpc().then((trpc) =>
      Promise.all([
        queries.fetchQuery(trpc.task.get.queryOptions({ taskId: id })),
        queries.prefetchQuery(trpc.task.steps.queryOptions({ taskId: id, limit: FIRST_STEPS })),
      ]),
    ),
  ]);
  if (task.status === "rejected" && task.reason instanceof TRPCError && (task.reason.code === "NOT_FOUND" || task.reason.code === "BAD_REQUEST")) notFound();
  return (
    <HydrationBoundary state={prefetchedState()}>
      <RoleGate needs={[]} what="A task's run page">
        {/* No <Suspense> here: the data is already fetched, and a boundary made React stream the
            rows apart from the frame and reveal them no sooner than 300 ms after the frame's first
            paint (its reveal throttle), a third of the page's time to first rows. */}
        <RunPage taskId={id} />
      </RoleGate>
    </HydrationBoundary>
  );
}

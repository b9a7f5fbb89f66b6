import { HydrationBoundary } from "@tanstack/react-query";
import { RoleGate } from "@/components/auth/role-gate.tsx";
import { taskListView } from "@/components/tasks/list/task-list-input.ts";
import { TaskList } from "@/components/tasks/task-list.tsx";
import { prefetchedState, serverQueryClient, serverTrpc } from "@/server/api/server-caller.ts";

export const dynamic = "force-dynamic";

/**
 * The task list, its first page rendered here: the signed-in user and the first page of the list
 * the URL asks for (the same `task.list` input and query key as the browser's, list/task-list-input.ts)
 * are asked in-process, at once, and sent with the page, so the HTML holds the first rows and the
 * browser does not ask again. A failed prefetch is simply asked again by the browser.
 */
export default async function TasksPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = await searchParams;
  const search = { get: (name: string) => (typeof raw[name] === "string" ? raw[name] : (raw[name]?.[0] ?? null)) };
  const queries = serverQueryClient();
  // A failure here (the database restarting) only means the browser asks itself, and shows that state.
  await serverTrpc()
    .then((trpc) =>
      queries.prefetchInfiniteQuery(
        trpc.task.list.infiniteQueryOptions(taskListView(search).input, { getNextPageParam: (last) => last.nextCursor ?? undefined }),
      ),
    )
    .catch(() => undefined);
  return (
    <HydrationBoundary state={prefetchedState()}>
      <RoleGate needs={[]} what="The task list">
        {/* No <Suspense> here: the data is already fetched, and a boundary made React stream the
            rows apart from the frame and reveal them no sooner than 300 ms after the frame's first
            paint (its reveal throttle), a third of the page's time to first rows. */}
        <TaskList />
      </RoleGate>
    </HydrationBoundary>
  );
}

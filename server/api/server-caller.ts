import { dehydrate, hashKey, QueryClient, type DehydratedState, type QueryKey } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache } from "react";
import superjson from "superjson";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext } from "./trpc.ts";

const createCaller = createCallerFactory(appRouter);

/** The tRPC context of the request being rendered (its cookie and Authorization header), made once per request. */
const requestContext = cache(async () => createTRPCContext({ headers: new Headers(await headers()) }));

/**
 * The tRPC caller of the request being rendered (create-t3-app's server-side caller): a server
 * component calls procedures directly — same input schemas, role checks and error mapping as over
 * HTTP, with the request's own cookie and Authorization header — instead of a loopback HTTP call.
 * One caller per request (React `cache`). Server components only; the browser uses the tRPC client.
 */
export const serverCaller = cache(async () => createCaller(await requestContext()));

/**
 * The request's TanStack Query client for prefetching a page's first data on the server (tRPC's
 * "server components" setup for @trpc/tanstack-react-query): one per request; answers are
 * serialised with superjson (Dates survive) and only successful ones are sent to the browser (a
 * failed prefetch is asked again there, where the page shows its own error state).
 */
export const serverQueryClient = cache(
  () =>
    new QueryClient({
      defaultOptions: {
        queries: { staleTime: 30_000, retry: false },
        dehydrate: { serializeData: superjson.serialize, shouldDehydrateQuery: (query) => query.state.status === "success" },
      },
    }),
);

/**
 * tRPC query options on the server — the same `queryKey`s as the browser's `useTRPC()` — whose
 * queries call the procedures in-process with the request's credentials (like {@link serverCaller}).
 * `serverQueryClient().fetchQuery(trpc.task.get.queryOptions(input))` fills the request's cache;
 * {@link prefetchedState} sends it with the page, so the browser renders it without asking again.
 */
export const serverTrpc = cache(async () => {
  const ctx = await requestContext();
  return createTRPCOptionsProxy({ ctx, router: appRouter, queryClient: serverQueryClient });
});

/**
 * What the request's server-side queries answered — all of them, or those of `keys` — for a
 * `<HydrationBoundary state=…>` around the page (the browser's QueryClient deserialises with superjson).
 * A query the browser's cache already holds (even still loading) is only updated after the render,
 * so a query that components above the boundary use (the layout's signed-in user) is sent by a
 * boundary above them.
 */
export function prefetchedState(keys?: QueryKey[]): DehydratedState {
  const hashes = keys ? new Set(keys.map((k) => hashKey(k))) : null;
  return dehydrate(serverQueryClient(), {
    shouldDehydrateQuery: (query) => query.state.status === "success" && (!hashes || hashes.has(query.queryHash)),
  });
}

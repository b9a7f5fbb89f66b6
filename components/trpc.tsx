"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpLink, splitLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/api/root.ts";
import { isDatabaseUnavailable } from "./ui/api-error.ts";
import { markSignedIn, markSignedOut, SignedOutBanner } from "./auth/signed-out.tsx";

export const { TRPCProvider, useTRPC } = createTRPCContext<AppRouter>();

/** An answer that will not change by asking again (no such task, bad input) is shown at once. */
const FINAL_CODES = new Set(["NOT_FOUND", "BAD_REQUEST", "CONFLICT", "FORBIDDEN", "UNAUTHORIZED"]);

/**
 * Retry a failed query once — unless the API gave a final answer, or said the database is
 * unavailable: that is shown at once ("The database is restarting — this page will retry",
 * components/ui/load-error.tsx), which asks again every few seconds until the API answers.
 */
function retryOnce(failures: number, error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return false;
  const code = error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
  return failures < 1 && !(code && FINAL_CODES.has(code));
}

/** The tRPC error code of a failed call (UNAUTHORIZED, NOT_FOUND, …), or undefined. */
function errorCode(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}

/** TanStack Query + tRPC for the dashboard. Live updates invalidate these queries (SSE). */
export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        // A session that expired (or was signed out elsewhere): back to the sign-in page, then here.
        queryCache: new QueryCache({
          onError: (error) => {
            if (errorCode(error) === "UNAUTHORIZED" && window.location.pathname !== "/sign-in") {
              window.location.href = `/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`;
            }
          },
        }),
        // An action refused because the session ended: the page (and its form) stays; a banner offers to sign in again.
        mutationCache: new MutationCache({
          onError: (error) => {
            if (errorCode(error) === "UNAUTHORIZED" && window.location.pathname !== "/sign-in") markSignedOut();
          },
          onSuccess: () => markSignedIn(),
        }),
        defaultOptions: {
          queries: { staleTime: 2_000, refetchOnWindowFocus: true, retry: retryOnce },
          // Answers a page prefetched on the server (server/api/server-caller.ts prefetchedState) come serialised with superjson.
          hydrate: { deserializeData: superjson.deserialize },
        },
      }),
  );
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        // A long task's step list (up to 10,000 rows) travels alone, so the small queries of the page are not held back by it (and it not by them).
        splitLink({
          condition: (op) => op.path === "task.steps" || op.path === "task.searchSteps",
          true: httpLink({ url: "/api/trpc", transformer: superjson }),
          false: httpBatchLink({ url: "/api/trpc", transformer: superjson }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <SignedOutBanner />
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

import { HydrationBoundary, type DehydratedState } from "@tanstack/react-query";
import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell.tsx";
import { UserBox } from "@/components/auth/user-box.tsx";
import { Nav } from "@/components/nav.tsx";
import { Providers } from "@/components/trpc.tsx";
import { prefetchedState, serverQueryClient, serverTrpc } from "@/server/api/server-caller.ts";
import "./globals.css";

export const metadata: Metadata = {
  title: "Longhaul",
  description: "Durable, checkpointed runs for long-horizon AI agents",
};

/** The signed-in user's query, answered in-process; nothing when that fails (the browser asks then). */
async function signedInUser(): Promise<DehydratedState | undefined> {
  try {
    const session = (await serverTrpc()).account.session.queryOptions();
    await serverQueryClient().prefetchQuery(session);
    return prefetchedState([session.queryKey]);
  } catch {
    return undefined;
  }
}

/**
 * Every page's frame. The signed-in user (`account.session`: the user box, and every page's role
 * gate) is asked here, in-process, and sent with the page, so no page waits for a round trip to
 * learn who is signed in before it renders (a failure is asked again by the browser).
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const user = await signedInUser();
  return (
    <html lang="en">
      <body>
        <Providers>
          <HydrationBoundary state={user}>
            <AppShell
              sidebar={
                <>
                  <div className="px-6 py-5 text-lg font-semibold tracking-tight">Longhaul</div>
                  <Nav />
                  <div className="mt-auto">
                    <UserBox />
                  </div>
                </>
              }
            >
              {children}
            </AppShell>
          </HydrationBoundary>
        </Providers>
      </body>
    </html>
  );
}

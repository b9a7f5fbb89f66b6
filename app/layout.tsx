import type { Metadata } from "next";
import type { ReactNode } from "react";
import { UserBox } from "@/components/auth/user-box.tsx";
import { Nav } from "@/components/nav.tsx";
import { Providers } from "@/components/trpc.tsx";
import "./globals.css";

export const metadata: Metadata = {
  title: "Longhaul",
  description: "Durable, checkpointed runs for long-horizon AI agents",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>
          <div className="flex min-h-screen">
            <aside className="flex w-52 shrink-0 flex-col border-r border-zinc-200 bg-white">
              <div className="px-6 py-5 text-lg font-semibold tracking-tight">Longhaul</div>
              <Nav />
              <div className="mt-auto">
                <UserBox />
              </div>
            </aside>
            <main className="min-w-0 flex-1">{children}</main>
          </div>
        </Providers>
      </body>
    </html>
  );
}

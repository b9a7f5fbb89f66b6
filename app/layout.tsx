import type { Metadata } from "next";
import type { ReactNode } from "react";
import { AppShell } from "@/components/app-shell.tsx";
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
        </Providers>
      </body>
    </html>
  );
}

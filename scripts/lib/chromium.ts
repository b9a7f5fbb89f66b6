/**
 * How Longhaul's browser runs start Debian's Chromium (docs/STACK.md pitfall 5): the one copy, for the
 * e2e tests (playwright.config.ts `launchOptions`) and bench:ui (scripts/bench-ui.ts).
 */

/** Chromium's command-line flags: headless, no sandbox (root in a container), no GPU, QUIC or background traffic. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Playwright's launch options for it: `CHROMIUM_PATH`, else /usr/bin/chromium, with CHROMIUM_ARGS. */
export function chromiumLaunchOptions(): { executablePath: string; args: string[] } {
  return { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...CHROMIUM_ARGS] };
}

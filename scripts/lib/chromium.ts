import { existsSync } from "node:fs";

/**
 * How Longhaul's browser runs start Debian's Chromium (docs/STACK.md pitfall 5): the one copy, for the
 * e2e tests (playwright.config.ts `launchOptions`) and bench:ui (scripts/bench-ui.ts).
 *
 * Debian ships two builds of the same Chromium: the browser (package `chromium`) and the headless
 * shell (package `chromium-headless-shell`), the build Playwright itself runs for headless tests. The
 * shell has no browser window to composite, so it does the same pages for about half the CPU: the
 * e2e suite's browser used 112 s of CPU instead of 226 s, and the suite ran 276 s instead of 336 s on
 * the 2-core machine (docs/BENCHMARKS.md, "The test loop's time").
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

/**
 * Which build to start: `browser` is the full browser (what a user runs; bench:ui measures pages in
 * it, and the Web Notifications API works there: the shell reports `Notification.permission` as
 * "denied" whatever was granted); `shell` is the headless shell, falling back to the browser where
 * the shell is not installed.
 */
export type ChromiumBuild = "browser" | "shell";

/**
 * Playwright's launch options for a build, with CHROMIUM_ARGS.
 * - browser: `CHROMIUM_PATH`, else /usr/bin/chromium.
 * - shell: `CHROMIUM_SHELL_PATH`; else `CHROMIUM_PATH` when that is set (a path given wins over one
 *   found); else /usr/bin/chromium-headless-shell if it exists, else the browser.
 */
export function chromiumLaunchOptions(build: ChromiumBuild = "browser"): { executablePath: string; args: string[] } {
  const browser = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  const shell =
    process.env.CHROMIUM_SHELL_PATH ??
    (process.env.CHROMIUM_PATH === undefined && existsSync("/usr/bin/chromium-headless-shell") ? "/usr/bin/chromium-headless-shell" : browser);
  return { executablePath: build === "shell" ? shell : browser, args: [...CHROMIUM_ARGS] };
}

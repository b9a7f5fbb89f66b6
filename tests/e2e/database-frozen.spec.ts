import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";

// A frozen database: the e2e stack's real PostgreSQL (postmaster and every backend) stopped with
// SIGSTOP — it accepts connections and answers nothing, as on a hung disk. A page opened then keeps
// its navigation and says the database is not answering, instead of an empty grey skeleton; once the
// processes go on (SIGCONT) the page shows its content by itself, with no reload.

/** The postmaster's pid (first line of postmaster.pid under the e2e data folder) and its children's. */
function postgresPids(): number[] {
  const dir = process.env.LONGHAUL_E2E_DATA;
  if (!dir) throw new Error("LONGHAUL_E2E_DATA is not set (playwright.config.ts sets it)");
  const postmaster = Number(readFileSync(join(dir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
  const children = execFileSync("ps", ["-o", "pid=", "--ppid", String(postmaster)], { encoding: "utf8" })
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  return [postmaster, ...children];
}

function signal(pids: readonly number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // a backend that ended meanwhile
    }
  }
}

test("a page opened while the database is frozen keeps its nav, says so, and recovers by itself", async ({ page }) => {
  await page.goto("/tasks");
  // The first page of a fresh server (its code loaded on first use) on a loaded machine.
  await expect(page.getByRole("heading", { name: "Tasks", exact: true })).toBeVisible({ timeout: 60_000 });

  const pids = postgresPids();
  signal(pids, "SIGSTOP");
  try {
    await page.goto("/tasks");
    const nav = page.getByRole("navigation", { name: "Main" });
    await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
    await expect(page.getByTestId("database-restarting")).toHaveText(/The database is not answering/, { timeout: 30_000 });
    await expect(page.getByRole("heading", { name: "Tasks", exact: true })).toBeHidden();
  } finally {
    signal(pids, "SIGCONT");
  }
  // Back: the same page, not reloaded, shows the task list and drops the message.
  await expect(page.getByRole("heading", { name: "Tasks", exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId("database-restarting")).toBeHidden();
});

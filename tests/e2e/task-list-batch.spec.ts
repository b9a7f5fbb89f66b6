import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";

// Many at once: an operator takes every running task the filter matches and cancels them
// from the list's bulk-action bar, previews a batch resume from the CLI (--dry-run), then ticks the
// cancelled tasks in the selection column and resumes them; the dialog shows the preview, then the
// batch's progress until each resumed task has completed.

async function launch(request: APIRequestContext, limit: number): Promise<string> {
  const res = await request.post("/api/trpc/task.launch", { data: { json: { demo: { kind: "license-audit", limit }, profile: "scripted" } } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: { taskId: string } } } }).result.data.json.taskId;
}

async function status(request: APIRequestContext, taskId: string): Promise<string> {
  const res = await request.get(`/api/trpc/task.get?input=${encodeURIComponent(JSON.stringify({ json: { taskId } }))}`);
  return ((await res.json()) as { result: { data: { json: { status: string } } } }).result.data.json.status;
}

// Scoped to its own tasks by the list's launched-since filter (`since=`, the instant before its
// launches), so tasks other specs left running or other `scripted` tasks never change its counts.
test("cancel every running task from the bulk bar, preview a resume from the CLI, resume the ticked ones with progress", async ({ page, request }) => {
  const since = new Date().toISOString();
  const tasks = [await launch(request, 60), await launch(request, 60)];
  for (const t of tasks) await expect.poll(() => status(request, t), { timeout: 60_000 }).toBe("running");

  // Every running task the filter matches: "Select all 2 matching", then Cancel tasks….
  const scope = `since=${encodeURIComponent(since)}`;
  await page.goto(`/tasks?status=running&${scope}`);
  // The field shows the instant the URL holds, read as UTC.
  // The field shows the same instant (a datetime-local value drops trailing zeros of the milliseconds: .510 → .51).
  await expect.poll(async () => new Date(`${await page.getByLabel("Launched since (UTC)").inputValue()}Z`).getTime()).toBe(new Date(since).getTime());
  const bar = page.getByTestId("bulk-bar");
  await expect(bar.getByRole("button", { name: "Select all 2 matching" })).toBeVisible();
  await bar.getByRole("button", { name: "Select all 2 matching" }).click();
  await expect(page.getByTestId("bulk-count")).toHaveText("All 2 matching tasks selected");
  await bar.getByRole("button", { name: "Cancel tasks…" }).click();
  const dialog = page.getByTestId("batch-dialog");
  await expect(dialog.getByTestId("batch-preview")).toHaveText("2 of 2 tasks will be cancelled.");
  await dialog.getByRole("button", { name: "Cancel 2 tasks" }).click();
  await expect(dialog.getByTestId("batch-progress")).toContainText("Finished: 2 done of 2", { timeout: 60_000 });
  await page.getByRole("button", { name: "Close" }).click();
  for (const t of tasks) await expect.poll(() => status(request, t)).toBe("cancelled");

  // The CLI's dry run counts the same two tasks and changes nothing.
  const cli = spawnSync(
    process.execPath,
    ["--import", "tsx", join(import.meta.dirname, "../../scripts/cli.ts"), "resume", "--status", "cancelled", "--since", since, "--dry-run"],
    {
      encoding: "utf8",
      env: { ...process.env, LONGHAUL_URL: `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`, DATA_DIR: process.env.LONGHAUL_E2E_DATA },
    },
  );
  expect(cli.status, cli.stderr).toBe(0);
  const dry = JSON.parse(cli.stdout.trim().split("\n").at(-1)!) as { dryRun: boolean; matched: number; tasks: number; taskIds: string[] };
  expect(dry).toMatchObject({ dryRun: true, matched: 2, tasks: 2 });
  expect([...dry.taskIds].sort()).toEqual([...tasks].sort());
  for (const t of tasks) expect(await status(request, t)).toBe("cancelled");

  // Tick both in the selection column and resume them: the preview, then progress until both completed.
  await page.goto(`/tasks?status=cancelled&${scope}`);
  await expect(page.getByTestId("task-count")).toHaveText("2 matching tasks");
  for (const t of tasks) await page.getByRole("checkbox", { name: `Select task ${t}` }).check();
  await expect(page.getByTestId("bulk-count")).toHaveText("2 selected");
  await bar.getByRole("button", { name: "Resume…" }).click();
  await expect(dialog.getByTestId("batch-preview")).toContainText("2 of 2 tasks will be resumed, each from its latest checkpoint");
  await expect(dialog.getByTestId("batch-estimate")).toContainText("Estimated cost:");
  await dialog.getByRole("button", { name: "Resume 2 tasks" }).click();
  await expect(dialog.getByTestId("batch-progress")).toContainText("Finished: 2 done of 2", { timeout: 150_000 });
  for (const t of tasks) await expect.poll(() => status(request, t), { timeout: 60_000 }).toBe("completed");
});

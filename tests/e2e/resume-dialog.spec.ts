import { expect, test, type APIRequestContext } from "@playwright/test";

// The resume/fork dialog (issue 18): before a resume or fork starts, it says what is kept and what
// will be redone. From the header (latest checkpoint) nothing is redone after a cancel; from an
// older checkpoint in the Checkpoints tab it names the facts that will be established again; the
// header's Fork opens the new task and leaves the original as it was.

async function trpc<T>(request: APIRequestContext, path: string, input: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`/api/trpc/${path}`, { data: { json: input } })
    : await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

test("header Resume… after a cancel redoes nothing; Resume from an older checkpoint names what is redone; Fork… opens a new task", async ({
  page,
  request,
}) => {
  const { taskId } = await trpc<{ taskId: string }>(request, "task.launch", { demo: { kind: "license-audit", limit: 60 }, profile: "scripted" }, true);
  await expect.poll(async () => (await trpc<unknown[]>(request, "task.checkpoints", { taskId })).length, { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
  await trpc(request, "task.cancel", { taskId }, true);
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });

  // Header Resume…: from the latest checkpoint, every fact is kept.
  await page.getByRole("button", { name: "Resume…" }).click();
  const dialog = page.getByTestId("resume-dialog");
  await expect(dialog.getByTestId("resume-redo")).toHaveText("Nothing is redone: every fact the task holds now is kept.");
  await expect(dialog.getByTestId("resume-kept")).toContainText(/^Kept: \d+ facts/);
  await dialog.getByRole("button", { name: "Back" }).click();
  await expect(dialog).toBeHidden();

  // The oldest checkpoint in the Checkpoints tab: the dialog names what will be redone.
  await page.getByRole("tab", { name: /^Checkpoints \([1-9]/ }).click();
  await page
    .locator("[data-checkpoint-seq]")
    .last()
    .getByRole("button", { name: /Checkpoint #1/ })
    .click();
  await page.getByRole("button", { name: "Resume from here" }).click();
  await expect(page.getByRole("dialog")).toContainText("Resume from checkpoint #1");
  await expect(dialog.getByTestId("resume-redo")).toContainText(
    /^Redone: this is an older state than the latest\. \d+ facts? the task holds now will be established again \(.+\), and the \d+ steps? after this checkpoint are not carried over\./,
  );
  await dialog.getByRole("button", { name: "Back" }).click();

  // Header Resume… confirmed; once it completed, Fork… opens a new task and the original stays completed.
  await page.getByRole("button", { name: "Resume…" }).click();
  await dialog.getByRole("button", { name: "Confirm resume" }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId })).status, { timeout: 150_000 }).toBe("completed");
  await page.reload();
  await page.getByRole("button", { name: "Fork…" }).click();
  await expect(page.getByRole("dialog")).toContainText("Fork from checkpoint #");
  await expect(dialog).toContainText("A fork is a new task linked to this one");
  await dialog.getByRole("button", { name: "Confirm fork" }).click();
  await expect(page).not.toHaveURL(new RegExp(`/tasks/${taskId}$`));
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  expect((await trpc<{ status: string }>(request, "task.get", { taskId })).status).toBe("completed");
});

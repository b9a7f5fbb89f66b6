import { expect, test } from "@playwright/test";
import { createUser, README_GOAL, signedInContext, type E2eUser } from "./helpers.ts";

// Nothing is offered that cannot be done: Fork… only with a checkpoint to branch from, the eval
// form only to who may start a run, and every "are you sure?" in the app's own dialog (a native
// confirm() would fail these tests: Playwright dismisses it, and the handler below throws).

const MANAGER: E2eUser = { email: "mo@e2e.test", name: "Mo", password: "mo-password-1", roles: ["manager"] };

async function trpc<T>(request: import("@playwright/test").APIRequestContext, path: string, input: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`/api/trpc/${path}`, { data: { json: input } })
    : await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

test.beforeEach(({ page }) => {
  page.on("dialog", (d) => {
    throw new Error(`a native ${d.type()} dialog was opened: ${d.message()}`);
  });
});

test("a task that ended before its first checkpoint is not offered Fork…, and says why", async ({ page, request }) => {
  const { taskId } = await trpc<{ taskId: string }>(request, "task.launch", { goal: README_GOAL, profile: "scripted-stall", stepBudget: 400 }, true);
  await trpc(request, "task.cancel", { taskId }, true);
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId })).status, { timeout: 60_000 }).toBe("cancelled");
  expect((await trpc<{ hasGoodCheckpoint: boolean }>(request, "task.get", { taskId })).hasGoodCheckpoint).toBe(false);
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByRole("button", { name: "Resume…" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Fork…" })).toHaveCount(0);
  await expect(page.getByTestId("fork-none")).toHaveText("No checkpoint to fork from: this task ended before its first checkpoint.");
});

test("Checkpoint now and Cancel task ask in the app's dialog; going back changes nothing", async ({ page, request }) => {
  const { taskId } = await trpc<{ taskId: string }>(request, "task.launch", { goal: README_GOAL, profile: "scripted-stall", stepBudget: 400 }, true);
  await page.goto(`/tasks/${taskId}`);
  await page.getByRole("button", { name: "Checkpoint now" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Take a checkpoint now?");
  await dialog.getByRole("button", { name: "Checkpoint now" }).click();
  await expect(page.getByRole("button", { name: "Checkpoint requested" })).toBeVisible();

  await page.getByRole("button", { name: "Cancel task" }).click();
  await expect(dialog).toContainText("Cancel this task?");
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(dialog).toBeHidden();
  expect((await trpc<{ status: string }>(request, "task.get", { taskId })).status).not.toBe("cancelled");
  await page.getByRole("button", { name: "Cancel task" }).click();
  await dialog.getByRole("button", { name: "Cancel task" }).click();
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
});

test("a manager reads /evals without the Start eval run form, and is told who starts runs", async ({ browser, baseURL, page, request }) => {
  const apply = await request.post("/api/trpc/eval.applySuite", {
    data: {
      json: {
        name: "e2e-offers",
        description: "one case",
        cases: [
          {
            name: "audit-2",
            launch: { demo: { kind: "license-audit", limit: 2 } },
            checks: [{ kind: "artifact", name: "licenses.csv", expected: "license-audit" }],
          },
        ],
      },
    },
  });
  expect(apply.ok(), await apply.text()).toBe(true);
  // An operator (the e2e admin holds every role) is offered the form.
  await page.goto("/evals");
  await expect(page.getByRole("form", { name: "Start an eval run" })).toBeVisible();

  await createUser(request, MANAGER);
  const manager = await (await signedInContext(browser, baseURL!, MANAGER)).newPage();
  await manager.goto("/evals");
  await expect(manager.getByTestId("suite-e2e-offers")).toBeVisible();
  await expect(manager.getByRole("form", { name: "Start an eval run" })).toHaveCount(0);
  await expect(manager.getByRole("button", { name: "Start eval run" })).toHaveCount(0);
  await expect(manager.getByTestId("eval-start-refused")).toContainText("Starting an eval run needs the operator role");
  await manager.context().close();
});

import { expect, test } from "@playwright/test";

// Clear words: a run page asked for a long id answers at once (it once hung 85 s, then 408) — its
// 404 page under the request limit, a 414 page past it; the launch form takes whole numbers only
// (1e3 launched a 1,000-package audit).

test("/tasks/<7 kB id> is a 404 page", async ({ page }) => {
  const response = await page.goto(`/tasks/${"x".repeat(7_000)}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId("task-not-found")).toContainText("Task not found");
});

test("Package limit 1e3 is refused in the form and nothing is launched", async ({ page }) => {
  const launches: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/trpc/task.launch")) launches.push(r.url());
  });
  await page.goto("/tasks/new");
  await page.getByLabel("Package limit").fill("1e3");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page.getByText("Package limit: a whole number from 1 to")).toBeVisible();
  await expect(page.getByLabel("Package limit")).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/tasks\/new/);
  expect(launches).toEqual([]);
});

test("a live stream asked for a table that does not notify is refused 400, naming the parameter and the tables", async ({ page }) => {
  const refused = await page.request.get("/api/live?tables=escalation,users");
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { error: string }).error).toBe(
    'tables: unknown table "users"; a comma-separated list of task, run, step, fact, artifact, outbox_message, checkpoint, alert, escalation',
  );
  expect((await page.request.get("/api/live?tables=")).status()).toBe(400);
});

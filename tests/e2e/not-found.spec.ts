import { expect, test } from "@playwright/test";

// `/tasks/<unknown>` is an HTTP 404 with a page that names the id it looked for, decoded.
test("an unknown task id answers 404 with a readable page naming the id", async ({ page }) => {
  const id = "no such task/é";
  const response = await page.goto(`/tasks/${encodeURIComponent(id)}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId("task-not-found")).toContainText("Task not found");
  await expect(page.getByTestId("task-not-found")).toContainText(id);
  await expect(page.getByRole("link", { name: "All tasks" })).toHaveAttribute("href", "/tasks");
});

test("a blank id is a 404 page too, not a crash", async ({ page }) => {
  const response = await page.goto("/tasks/%20%20");
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId("task-not-found")).toBeVisible();
});

test("an over-long id (7 kB) is a 404 page too, answered before any lookup", async ({ page }) => {
  const response = await page.goto(`/tasks/${"x".repeat(7_000)}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId("task-not-found")).toBeVisible();
});

test("an address past the request limit (10 kB) is a 414 page with a way back", async ({ page }) => {
  const response = await page.goto(`/tasks/${"x".repeat(10_000)}`);
  expect(response?.status()).toBe(414);
  await expect(page.getByText("This address is too long")).toBeVisible();
  await page.getByRole("link", { name: "All tasks" }).click();
  await expect(page).toHaveURL(/\/tasks$/);
});

test("the artifact route answers hostile ids with 400/404 in its own words, never a 5xx", async ({ request }) => {
  for (const [id, status] of [
    ["%00", 400],
    ["%20", 400],
    ["x".repeat(101), 400],
    ["no_such_artifact", 404],
  ] as const) {
    const res = await request.get(`/api/artifacts/${id}`);
    expect(res.status(), id).toBe(status);
    expect(await res.text()).not.toMatch(/prisma|invalid `|\bat \//i);
  }
});

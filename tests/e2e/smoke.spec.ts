import { expect, test } from "@playwright/test";

test("the dashboard answers: / redirects to /tasks and the task list renders", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/tasks$/);
  await expect(page.getByRole("heading", { name: "Tasks" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Launch task" }).first()).toBeVisible();
});

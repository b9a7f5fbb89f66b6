import { expect, test } from "@playwright/test";
import { createUser, signedInContext, type E2eUser } from "./helpers.ts";

// The operator's form survives: Back keeps the launch form, and a session that ended says "signed out — sign
// in again" with a link and keeps the form (it once showed "send an API token: Authorization:
// Bearer …" and lost what was typed).

const OLIVE: E2eUser = { email: "olive-session@e2e.test", name: "olive-session", password: "olive-session-password-1", roles: ["operator"] };
const GOAL = "Summarise the README in the workspace, then finish.";

test("Back keeps the launch form as typed", async ({ page }) => {
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill(GOAL);
  await page.getByLabel("Step budget").fill("37");
  await page.getByRole("link", { name: "Tasks", exact: true }).first().click();
  await expect(page).toHaveURL(/\/tasks$/);
  await page.goBack();
  await expect(page).toHaveURL(/\/tasks\/new$/);
  await expect(page.getByLabel("Goal", { exact: true })).toHaveValue(GOAL);
  await expect(page.getByLabel("Step budget")).toHaveValue("37");
});

test("a launch after the session ended says signed out, links to sign in, and keeps the form", async ({ browser, baseURL, request }) => {
  await createUser(request, OLIVE);
  const context = await signedInContext(browser, baseURL!, OLIVE);
  const page = await context.newPage();
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill(GOAL);
  // The session ends elsewhere: signed out in another tab (the same browser's cookie jar).
  const status = await page.evaluate(
    async () => (await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status,
  );
  expect(status).toBe(200);
  await page.getByRole("button", { name: "Launch" }).click();
  const banner = page.getByTestId("signed-out");
  await expect(banner).toContainText("Signed out");
  await expect(banner.getByRole("link", { name: "Sign in again" })).toHaveAttribute("href", "/sign-in?next=%2Ftasks%2Fnew");
  await expect(page.getByText(/Authorization: Bearer/)).toHaveCount(0);
  await expect(page.getByText("signed out — sign in again")).toBeVisible();
  await expect(page.getByLabel("Goal", { exact: true })).toHaveValue(GOAL);
  await expect(page).toHaveURL(/\/tasks\/new$/);
  await context.close();
});

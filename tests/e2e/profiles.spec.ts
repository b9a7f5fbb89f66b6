import { expect, test } from "@playwright/test";
import { createUser, launchGoalFromForm, openNewProfileForm, README_GOAL, signedInContext, type E2eUser } from "./helpers.ts";

// Profiles from the browser: an admin creates a profile on /admin — a bad base URL is
// refused under its field and nothing is stored — then an operator launches a task with it, and
// the task page says which profile version it runs.

const OPERATOR: E2eUser = { email: "profiles-operator@e2e.test", name: "profiles-operator", password: "profiles-operator-pw-1", roles: ["operator"] };

test("an admin creates a profile in the browser; an operator launches a task with it", async ({ page, browser, baseURL }) => {
  const name = `e2e-profile-${Date.now().toString(36)}`;
  const { section, form } = await openNewProfileForm(page, { name, model: "scripted" });
  await form.locator('select[name="provider"]').selectOption("scripted");
  await form.getByLabel(/^Base URL/).fill("ftp://models.example.com");
  await form.getByLabel("Step budget", { exact: true }).fill("120");
  await form.getByRole("button", { name: "Create profile" }).click();
  // Said by the field's label on the form, not the API's path; editing the field takes it away.
  const baseUrlError = form.getByTestId("profile-field-baseUrl").getByRole("alert");
  await expect(baseUrlError).toHaveText(/^Base URL: must be an http\(s\) URL/);

  // Fixed: the scripted model server needs no base URL; "Test connection" reaches it.
  await form.getByLabel(/^Base URL/).fill("");
  await expect(baseUrlError).toHaveCount(0);
  await form.getByRole("button", { name: "Test connection" }).click();
  await expect(form.getByTestId("connection-result")).toContainText("Connected: scripted");
  await form.getByRole("button", { name: "Create profile" }).click();
  await expect(form).toBeHidden();
  const row = section.locator(`[data-profile-row="${name}"]`);
  await expect(row).toContainText("v1");
  await expect(row).toContainText("scripted model server");

  // An operator (another user) launches with it from the form; the task page names the version.
  await createUser(page.request, OPERATOR);
  const context = await signedInContext(browser, baseURL!, OPERATOR);
  const operatorPage = await context.newPage();
  await launchGoalFromForm(operatorPage, { goal: README_GOAL, profile: name });
  await expect(operatorPage.getByTestId("task-profile-version")).toHaveText(`profile ${name} v1`);
  await expect(operatorPage.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 90_000 });
  await context.close();
});

import { expect, test, type Page } from "@playwright/test";
import { launchGoalFromForm, README_GOAL } from "./helpers.ts";

// Launch templates through the browser: Save as template on a task page, start three
// tasks from it on the launch form (the history panel before each), the suggested budget after
// three completed tasks put in the budget fields unless the operator changes them, and /costs grouped
// by launch template.

const name = "readme-summary";

async function launchFromTemplate(page: Page): Promise<void> {
  await page.goto("/tasks/new");
  await page.getByLabel("Start from a template").selectOption(name);
  await expect(page.getByLabel("Goal", { exact: true })).toHaveValue(README_GOAL);
  await expect(page.getByTestId("template-history")).toBeVisible();
  await page.getByRole("button", { name: `Launch from ${name}` }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  // The task page says which template it came from.
  await expect(page.getByTestId("task-origin-template")).toHaveText(`From launch template ${name}`);
  await expect(page.getByTestId("task-origin-eval")).toHaveCount(0);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
}

test("save a task as a template, launch from it, see its history and the costs grouped by it", async ({ page }) => {
  await launchGoalFromForm(page, { goal: README_GOAL, profile: "scripted", stepBudget: 30 });
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("task-origin")).toHaveCount(0); // launched directly: no origin line
  // The app's own dialog (never the browser's prompt()): a refused name stays in it, in the field's words.
  await page.getByRole("button", { name: "Save as template" }).click();
  const dialog = page.getByRole("dialog", { name: "Save as template" });
  await dialog.getByLabel("Name").fill("Not Kebab");
  await dialog.getByRole("button", { name: "Save template" }).click();
  await expect(dialog.getByRole("alert")).toHaveText("Name: kebab-case (lowercase letters, digits and single dashes)");
  await dialog.getByLabel("Name").fill(name);
  await expect(dialog.getByRole("alert")).toHaveCount(0);
  await dialog.getByRole("button", { name: "Save template" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("template-saved")).toHaveText(`Saved as template ${name}`);

  await page.goto("/tasks/new");
  await page.getByLabel("Start from a template").selectOption(name);
  await expect(page.getByTestId("template-history")).toContainText("Similar tasks: 0 completed from this template");
  await expect(page.getByTestId("template-history")).toContainText("no history yet (0 completed tasks, 3 needed)");
  await expect(page.getByTestId("budget-source")).toContainText("No suggestion yet: this launch uses the template's budgets");
  await expect(page.getByLabel("Step budget")).toHaveValue("30");
  await expect(page.getByLabel("Goal", { exact: true })).toBeDisabled();

  for (let i = 0; i < 3; i++) await launchFromTemplate(page);
  // The origin line's link opens the launch form started from the template.
  const fromTemplateTask = page.url();
  await page.getByTestId("task-origin-template").getByRole("link", { name }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/new\\?template=${name}$`));
  await expect(page.getByLabel("Start from a template")).toHaveValue(name);
  await expect(page.getByLabel("Goal", { exact: true })).toHaveValue(README_GOAL);

  await page.goto("/tasks/new");
  await page.getByLabel("Start from a template").selectOption(name);
  const history = page.getByTestId("template-history");
  await expect(history).toContainText("Similar tasks: 3 completed from this template");
  await expect(history).toContainText(/similar tasks took median [\d.]+ steps, p90 [\d.]+/);
  // The scripted README run takes the same steps each time: p50 = p90 = s; the form uses ceil(s × 1.25) unless changed.
  const p90 = Number(await history.locator("dt:text-is('Steps p90') + dd").innerText());
  expect(p90).toBeGreaterThan(0);
  const suggested = String(Math.ceil(p90 * 1.25));
  await expect(page.getByLabel("Step budget")).toHaveValue(suggested);
  await expect(page.getByTestId("budget-source")).toContainText(`This launch uses the suggested budgets: ${suggested} steps`);
  // Changing a budget makes it the operator's; the button puts the suggestion back.
  await page.getByLabel("Step budget").fill("99");
  await expect(page.getByTestId("budget-source")).toHaveCount(0);
  await history.getByRole("button", { name: /Use suggested budgets/ }).click();
  await expect(page.getByLabel("Step budget")).toHaveValue(suggested);
  await expect(page.getByTestId("budget-source")).toBeVisible();

  await page.goto("/costs");
  await page.getByLabel("Group by").selectOption("template");
  const table = page.getByTestId("group-by-template");
  await expect(table.locator(`tr[data-key="${name}"] td`).first()).toHaveText("3");
  await expect(table.locator('tr[data-key=""] th')).toHaveText("(no template)");

  // Delete (archive) it from the launch form: gone from the picker, its tasks still counted on /costs.
  await page.goto("/tasks/new");
  await page.getByLabel("Start from a template").selectOption(name);
  await page.getByRole("button", { name: "Delete template" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Delete template" }).click();
  await expect(page.getByLabel("Start from a template").locator(`option[value="${name}"]`)).toHaveCount(0);
  // Its tasks still say where they came from, without a link (an archived template no longer launches).
  await page.goto(fromTemplateTask);
  await expect(page.getByTestId("task-origin-template")).toHaveText(`From launch template ${name} (archived)`);
  await expect(page.getByTestId("task-origin-template").getByRole("link")).toHaveCount(0);
});

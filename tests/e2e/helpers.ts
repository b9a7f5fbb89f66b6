import { expect, type Page } from "@playwright/test";

// Shared steps of the Playwright specs (tests/e2e/*.spec.ts); not a spec itself.

/** A goal the scripted-loop profile loops on (the same list_files call) until the loop detector escalates; resumed with guidance it reads the README and finishes. */
export const README_GOAL = "Find out what this project is from the README in the workspace, record it as a fact, then finish.";

/**
 * Launches a goal of one's own from the form: opens /tasks/new, checks "A goal of my own", fills
 * Goal, picks agent profile `profile`, fills Step budget when `stepBudget` is given, clicks Launch
 * and waits for the task page (`/tasks/task_…`). Returns that page's URL.
 */
export async function launchGoalFromForm(page: Page, { goal, profile, stepBudget }: { goal: string; profile: string; stepBudget?: number }): Promise<string> {
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill(goal);
  await page.getByLabel("Agent profile").selectOption(profile);
  if (stepBudget !== undefined) await page.getByLabel("Step budget").fill(String(stepBudget));
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  return page.url();
}

/**
 * Launches {@link README_GOAL} on the scripted-loop profile from the form and waits (up to 60 s) for
 * the task page's escalation banner to name the loop (its 3rd identical call). Returns the task page's URL.
 */
export async function launchLoopUntilEscalated(page: Page): Promise<string> {
  const taskUrl = await launchGoalFromForm(page, { goal: README_GOAL, profile: "scripted-loop" });
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });
  return taskUrl;
}

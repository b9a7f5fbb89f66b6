import { expect, test } from "@playwright/test";

test("a handler opens the inbox, reads the context card, resumes with guidance, and watches the run finish", async ({ page }) => {
  // A loop scenario (scripted-loop: the same tool call again and again) escalates on its 3rd identical call.
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill("Find out what this project is from the README in the workspace, record it as a fact, then finish.");
  await page.getByLabel("Agent profile").selectOption("scripted-loop");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  const taskUrl = page.url();
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });

  // The inbox: the escalation with its context card.
  await page.getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);
  const card = page.getByTestId("context-card");
  await expect(card).toContainText("Loop: the same tool call with identical arguments");
  await expect(card).toContainText("Last steps");
  await expect(card).toContainText("list_files");
  await card.getByLabel("Guidance for the agent").fill("Stop listing the folder: read the README and finish.");
  await card.getByRole("button", { name: "Resume" }).click();
  await expect(page.getByTestId("decided")).toContainText("resume by operator");

  // Back on the run page, the resumed run finishes.
  await page.goto(taskUrl);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("run-line")).toContainText("resume");
  await expect(page.getByTestId("run-line")).toContainText("guidance");
});

test("an operator escalates a running task by hand and a handler marks it a dead end", async ({ page }) => {
  // The budget scenario works until its budget: long enough to escalate by hand first.
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill("Examine every workspace entry and record what you find.");
  await page.getByLabel("Agent profile").selectOption("scripted-budget");
  await page.getByLabel("Step budget").fill("400");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  page.once("dialog", (dialog) => void dialog.accept("checking by hand"));
  await page.getByRole("button", { name: "Escalate" }).click();
  await expect(page.getByTestId("escalation-banner")).toContainText("Escalated by an operator: checking by hand", { timeout: 60_000 });

  await page.getByRole("link", { name: "Decide" }).click();
  const card = page.getByTestId("context-card");
  await card.getByLabel("Dead-end reason").fill("Nothing to find here.");
  await card.getByRole("button", { name: "Mark dead end" }).click();
  await expect(page.getByTestId("decided")).toContainText("dead end by operator");
});

import { expect, test } from "@playwright/test";
import { launchLoopUntilEscalated } from "./helpers.ts";

// The run page shows the executor's view of the current run, read from the embedded
// executor's tables, and every absolute time follows one Local/UTC switch kept in localStorage.

test.use({ timezoneId: "Europe/Berlin" });

test("an escalated run shows the executor waiting for the decision event; its loop folds as ×N; Local/UTC switch is remembered", async ({ page }) => {
  await launchLoopUntilEscalated(page);
  const view = page.getByTestId("executor-view");
  await expect(view).toHaveAttribute("data-state", "waiting", { timeout: 30_000 });
  await expect(view).toContainText("Waiting");
  await expect(view).toContainText("longhaul/escalation.applied");
  await expect(view).toContainText(/times out in/);

  // The live header: where the wait is shown it says what its timeout does; the active
  // time stands still while the task waits for a human, which is counted apart; "last step" is never
  // in the future; the budget's steps name the human and checkpoint steps counted apart.
  await expect(page.getByTestId("wait-timeout")).toContainText(/If no one decides by .*: reminder 1 of 4 .* the next comes \d+ min later/);
  await expect(page.getByTestId("duration-active")).toHaveAttribute("data-ticking", "false");
  await expect(page.getByTestId("duration-waiting")).toContainText("waiting for a human (now)");
  await expect(page.getByTestId("last-step-age")).toHaveText(/ago$/);
  await expect(page.getByTestId("steps-apart")).toHaveText(/^\+ \d+ checkpoints?.*, not in the budget$/);

  // The loop's identical calls fold into one "×N" row on the timeline; it expands to its steps.
  const fold = page.getByTestId("repeat-fold").first();
  await expect(fold).toContainText(/×[2-9]/);
  await expect(fold).toHaveAttribute("aria-expanded", "false");
  const steps = page.getByRole("list", { name: "Steps" }).getByRole("listitem");
  const before = await steps.count();
  await fold.click();
  await expect(fold).toHaveAttribute("aria-expanded", "true");
  await expect.poll(() => steps.count()).toBeGreaterThan(before);

  // The task's start time in the header: UTC by default, local (Berlin in December = UTC+01:00) after the switch, kept over a reload.
  const started = page
    .locator("header time")
    .filter({ hasText: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/ })
    .first();
  await expect(started).toHaveText(/ UTC$/);
  await page.getByRole("group", { name: "Time zone" }).getByRole("button", { name: "Local" }).click();
  await expect(started).toHaveText(/ UTC\+01:00$/);
  await page.reload();
  await expect(page.getByRole("group", { name: "Time zone" }).getByRole("button", { name: "Local" })).toHaveAttribute("aria-pressed", "true");
  await expect(
    page
      .locator("header time")
      .filter({ hasText: /^\d{4}-\d{2}-\d{2} / })
      .first(),
  ).toHaveText(/ UTC\+01:00$/);
  // The exact time in both zones on hover.
  await expect(
    page
      .locator("header time")
      .filter({ hasText: /^\d{4}-\d{2}-\d{2} / })
      .first(),
  ).toHaveAttribute("title", /UTC · .*UTC\+01:00 \(local\)/);
  await page.getByRole("group", { name: "Time zone" }).getByRole("button", { name: "UTC" }).click();
});

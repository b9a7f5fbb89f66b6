import { expect, test, type Locator, type Page } from "@playwright/test";
import { README_GOAL } from "./helpers.ts";

// Pages work without a mouse: a task is launched and its escalation decided
// with the keyboard alone (Tab, arrows, Enter, typing — no clicks), and every control the Tab key
// lands on shows a visible focus style (an outline or a ring).

/** Whether the focused element shows a focus style: an outline that is drawn, or a ring (box-shadow). */
async function focusedLooksFocused(page: Page): Promise<{ what: string; visible: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { what: "body", visible: true };
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
    const ring = s.boxShadow !== "none" && s.boxShadow !== "";
    const what = `${el.tagName.toLowerCase()} ${el.getAttribute("aria-label") ?? el.getAttribute("name") ?? el.textContent?.trim().slice(0, 40) ?? ""}`;
    return { what, visible: outline || ring };
  });
}

/**
 * Presses Tab until `target` has the focus (at most 200 times), recording into `unstyled` each
 * control on the way that showed no focus style.
 */
async function tabTo(page: Page, target: Locator, unstyled: string[]): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    const f = await focusedLooksFocused(page);
    if (!f.visible) unstyled.push(f.what);
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error(`Tab never reached ${String(target)}`);
}

test("launch a task and decide its escalation with the keyboard alone", async ({ page }) => {
  const unstyled: string[] = [];
  await page.goto("/tasks/new");
  await expect(page.getByRole("heading", { name: "Launch a task" })).toBeVisible();

  // The mode radios: Tab lands on the checked one (the first demo); each demo is its own card
  // before "A goal of my own", so ArrowRight moves through them until the goal is picked.
  const demo = page.getByRole("radio").first();
  await tabTo(page, demo, unstyled);
  const ownGoal = page.getByLabel("A goal of my own");
  const radios = await page.getByRole("radio").count();
  for (let i = 0; i < radios && !(await ownGoal.isChecked()); i++) await page.keyboard.press("ArrowRight");
  await expect(ownGoal).toBeChecked();

  await tabTo(page, page.getByLabel("Goal", { exact: true }), unstyled);
  await page.keyboard.type(README_GOAL);
  const profile = page.getByLabel("Agent profile");
  await tabTo(page, profile, unstyled);
  for (let i = 0; i < 30 && (await profile.inputValue()) !== "scripted-loop"; i++) await page.keyboard.press("ArrowDown");
  await expect(profile).toHaveValue("scripted-loop");
  await tabTo(page, page.getByRole("button", { name: "Launch" }), unstyled);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });

  // The banner's Decide link, then the context card: guidance and Resume.
  await tabTo(page, page.getByRole("link", { name: "Decide" }), unstyled);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);
  const card = page.getByTestId("context-card");
  await expect(card).toContainText("Loop: the same tool call with identical arguments");
  await tabTo(page, card.getByLabel("Guidance for the agent"), unstyled);
  await page.keyboard.type("Stop listing the folder: read the README and finish.");
  await tabTo(page, card.getByRole("button", { name: /^Resume/ }), unstyled);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("decided")).toContainText("resume by operator");

  expect(unstyled, "controls the Tab key reached without a visible focus style").toEqual([]);
});

import { expect, test, type Page } from "@playwright/test";
import { launchGoalFromForm } from "./helpers.ts";

// Issue 18, "Pages that fit and work without a mouse": at 800, 1280 and 1440 px the main pages have
// no horizontal overflow — the document is no wider than the window and no element sticks out past
// it (unless a scroll container of its own clips it) — even with a 200-character goal without spaces.

const WIDTHS = [800, 1280, 1440];
const LONG_NAME = `layout${"x".repeat(194)}`;

/**
 * The elements that stick out past the window's right edge, each as "tag#id.class (right px)",
 * skipping those inside an ancestor that clips or scrolls horizontally (overflow-x not visible).
 */
async function overflowing(page: Page): Promise<{ scrollWidth: number; clientWidth: number; offenders: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const ox = getComputedStyle(p).overflowX;
        if (ox !== "visible") return true;
      }
      return false;
    };
    const offenders: string[] = [];
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 1) continue;
      if (getComputedStyle(el).position === "fixed" || clipped(el)) continue;
      offenders.push(
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${String(el.getAttribute("class") ?? "").slice(0, 60)} (${Math.round(r.right)}px)`,
      );
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, offenders: offenders.slice(0, 10) };
  });
}

/** Asserts that `page`, at its current width, has no horizontal overflow; `what` names it in failures. */
async function expectFits(page: Page, what: string): Promise<void> {
  const r = await overflowing(page);
  expect(r.offenders, `${what}: elements past the window's edge`).toEqual([]);
  expect(r.scrollWidth, `${what}: document wider than the window`).toBeLessThanOrEqual(r.clientWidth);
}

test("the main pages fit 800, 1280 and 1440 px with a 200-character goal", async ({ page }) => {
  // A loop scenario with a long unbroken goal: it escalates, so /escalations has a card for it.
  await page.setViewportSize({ width: 1440, height: 900 });
  const taskUrl = await launchGoalFromForm(page, { goal: LONG_NAME, profile: "scripted-loop" });
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });

    await page.goto("/tasks");
    await expect(page.getByText(LONG_NAME).first()).toBeVisible();
    await expectFits(page, `/tasks at ${width}px`);
    if (width >= 1280) {
      // The table scrolls inside its own box (so the page check above skips it): at 1280 and up every column shows.
      const box = await page.getByTestId("task-table-scroll").evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
      expect(box.scrollWidth, `/tasks at ${width}px: the table's columns are cut off`).toBeLessThanOrEqual(box.clientWidth);
    }

    await page.goto(taskUrl);
    const tabs = page.getByRole("tablist", { name: "Details" }).getByRole("tab");
    await expect(tabs.first()).toBeVisible();
    // Every tab shows without scrolling the strip sideways (they wrap): each lies inside the window and the strip.
    const strip = await page.getByRole("tablist", { name: "Details" }).evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, scrollWidth: el.scrollWidth, clientWidth: el.clientWidth };
    });
    expect(strip.scrollWidth, `run page tabs at ${width}px scroll sideways`).toBeLessThanOrEqual(strip.clientWidth);
    for (let i = 0; i < (await tabs.count()); i++) {
      const b = (await tabs.nth(i).boundingBox())!;
      const label = await tabs.nth(i).innerText();
      expect(b.x, `tab ${label} at ${width}px`).toBeGreaterThanOrEqual(Math.max(0, strip.left) - 1);
      expect(b.x + b.width, `tab ${label} at ${width}px`).toBeLessThanOrEqual(Math.min(width, strip.right) + 1);
    }
    // A proper tablist: the arrow keys move between tabs.
    await tabs.first().click();
    await page.keyboard.press("ArrowRight");
    await expect(tabs.nth(1)).toHaveAttribute("aria-selected", "true");
    await expect(tabs.nth(1)).toBeFocused();
    await page.keyboard.press("ArrowLeft");
    await expect(tabs.first()).toBeFocused();
    for (let i = 0; i < (await tabs.count()); i++) {
      await tabs.nth(i).click();
      await expect(tabs.nth(i)).toHaveAttribute("aria-selected", "true");
      await expectFits(page, `run page, tab ${await tabs.nth(i).innerText()} at ${width}px`);
    }

    await page.goto("/costs");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectFits(page, `/costs at ${width}px`);

    await page.goto("/escalations");
    await expect(page.getByTestId("context-card")).toBeVisible();
    await expectFits(page, `/escalations at ${width}px`);

    await page.goto("/admin");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectFits(page, `/admin at ${width}px`);
  }
});

test("at 800 px the sidebar is a rail with a Menu button and the escalation tiles wrap", async ({ page }) => {
  await page.setViewportSize({ width: 800, height: 900 });
  await page.goto("/escalations");
  await expect(page.getByRole("complementary", { name: "Sidebar" })).toBeHidden();
  await page.getByRole("button", { name: "Open the menu" }).click();
  const sidebar = page.getByRole("complementary", { name: "Sidebar" });
  await expect(sidebar).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(sidebar).toBeHidden();

  // Tiles of the spend grid wrap onto more rows rather than overflowing the card.
  const spend = page.getByTestId("spend").first();
  if (await spend.isVisible()) {
    const box = await spend.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(800);
  }
  await expectFits(page, "/escalations at 800px");
});

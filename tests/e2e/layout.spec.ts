import { expect, test, type Page } from "@playwright/test";
import { launchGoalFromForm, README_GOAL } from "./helpers.ts";

// Pages fit the window: at 800, 1280 and 1440 px the main pages have
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

/**
 * Elements inside `container` whose right edge passes the container's (unless an element between
 * them clips or scrolls horizontally), each as "tag.class (right px > limit px)".
 */
async function widerThan(page: Page, container: string): Promise<string[]> {
  return page.locator(container).evaluate((box) => {
    const limit = box.getBoundingClientRect().right;
    const clipped = (el: Element): boolean => {
      for (let p = el.parentElement; p && p !== box; p = p.parentElement) if (getComputedStyle(p).overflowX !== "visible") return true;
      return false;
    };
    return Array.from(box.querySelectorAll("*"))
      .filter((el) => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > limit + 1 && !clipped(el))
      .slice(0, 10)
      .map(
        (el) =>
          `${el.tagName.toLowerCase()}.${String(el.getAttribute("class") ?? "").slice(0, 50)} (${Math.round(el.getBoundingClientRect().right)}px > ${Math.round(limit)}px)`,
      );
  });
}

/** Characters a line of `locator`'s text holds as rendered: its length over the lines it wraps onto (line boxes of a Range). */
async function charsPerLine(locator: ReturnType<Page["locator"]>): Promise<{ chars: number; lines: number; width: number }> {
  return locator.evaluate((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
    const text = (el.textContent ?? "").trim();
    return { chars: Math.round(text.length / Math.max(1, tops.size)), lines: tops.size, width: Math.round(el.getBoundingClientRect().width) };
  });
}

test("/costs: the breakdown tables keep their name column readable and every column in view", async ({ page, request }) => {
  // A finished task, so the profile and model tables have rows.
  const res = await request.post("/api/trpc/task.launch", { data: { json: { demo: { kind: "license-audit", limit: 2 }, profile: "scripted" } } });
  expect(res.status(), await res.text()).toBe(200);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/costs?from=2020-01-01");
    for (const testId of ["by-profile", "by-model"]) {
      const table = page.getByTestId(testId);
      await expect(table).toBeVisible();
      const name = table.locator("th[data-col=name]").first();
      const text = (await name.innerText()).trim();
      const line = await charsPerLine(name);
      // A name reads on one line up to 16 characters, never a letter or two a line.
      expect(line.chars, `${testId} at ${width}px: "${text}" as ${line.lines} line(s) ${line.width}px wide`).toBeGreaterThanOrEqual(Math.min(text.length, 16));
      expect(line.width, `${testId} name column at ${width}px`).toBeGreaterThanOrEqual(150);
      if (width >= 1280) {
        // Every column, Price table included, fits in the table's box: nothing is cut off or hidden behind a sideways scroll.
        const box = await table.evaluate((t) => ({ scrollWidth: t.parentElement!.scrollWidth, clientWidth: t.parentElement!.clientWidth }));
        expect(box.scrollWidth, `${testId} at ${width}px scrolls sideways`).toBeLessThanOrEqual(box.clientWidth);
        // Scrolled to vertically first (the tables sit below the charts): what is checked is that it is not off to the side.
        const prices = table.locator("td[data-col=prices]").first();
        await prices.scrollIntoViewIfNeeded();
        await expect(prices).toBeInViewport();
      }
    }
    await expectFits(page, `/costs at ${width}px`);
  }
});

test("the run page: one readable column at 800 px, the step list above the fold at 1440×900", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const taskUrl = await launchGoalFromForm(page, { goal: "Find out what this project is from the README, then finish.", profile: "scripted" });
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(taskUrl);
    const rows = page.getByRole("list", { name: "Steps" }).getByRole("listitem");
    await expect(rows.first()).toBeVisible();
    // The three boxes read together, and read again until the page has settled: the timeline grows
    // as the rest of its rows and panels come in, and boxes read apart, or mid-way, can disagree.
    const boxes = () =>
      Promise.all([
        page.getByTestId("timeline-section").boundingBox(),
        page.getByRole("complementary", { name: "Details" }).boundingBox(),
        page.locator("main").boundingBox(),
      ]).then(([timeline, details, main]) => ({ timeline: timeline!, details: details!, main: main! }));
    /** Waits until `gap` of the settled boxes is at least 0. */
    const settlesAtLeastZero = (message: string, gap: (b: Awaited<ReturnType<typeof boxes>>) => number) =>
      expect.poll(async () => gap(await boxes()), { message }).toBeGreaterThanOrEqual(0);
    if (width < 1024) {
      // One column: the timeline as wide as the page, the details below it.
      await settlesAtLeastZero(`timeline at ${width}px`, ({ timeline, main }) => timeline.width - (main.width - 2));
      await settlesAtLeastZero(`details below the timeline at ${width}px`, ({ timeline, details }) => details.y - (timeline.y + timeline.height - 1));
    } else {
      await settlesAtLeastZero(`details beside the timeline at ${width}px`, ({ timeline, details }) => details.x - (timeline.x + timeline.width - 1));
    }
    // Step summaries have room to read: at least 30 characters of width, never "fi…".
    const summary = page.getByTestId("step-summary").first();
    const room = await summary.evaluate((el) => el.clientWidth / parseFloat(getComputedStyle(el).fontSize));
    expect(room * 2, `step summary room at ${width}px (characters)`).toBeGreaterThanOrEqual(30);
    await expectFits(page, `run page at ${width}px`);
  }

  // At 1440×900 the step list starts above the fold, with room for several rows (the waterfall is folded away until asked for).
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(taskUrl);
  await expect(page.getByTestId("waterfall")).toHaveCount(0);
  const list = (await page.getByTestId("timeline").boundingBox())!;
  expect(list.y + 4 * 44, "the step list's first rows are above the fold at 1440×900").toBeLessThanOrEqual(900);
  // The box follows the URL (it is checked once the URL says wf=1): click, then wait for both.
  await page.getByRole("checkbox", { name: "Waterfall" }).click();
  await expect(page.getByRole("checkbox", { name: "Waterfall" })).toBeChecked();
  await expect(page).toHaveURL(/wf=1/);
  await expect(page.getByTestId("waterfall")).toBeVisible();
});

test("during a live run the step pane follows the latest step until a step is picked, and can follow again", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  // The budget scenario keeps working (up to its step budget): long enough to watch it live.
  await launchGoalFromForm(page, { goal: "Examine every workspace entry and record what you find.", profile: "scripted-budget", stepBudget: 400 });
  const following = page.getByTestId("step-following");
  await expect(following).toBeVisible({ timeout: 60_000 });
  const detail = page.getByTestId("step-detail");
  const shown = detail.locator("span.font-mono").first();
  const firstShown = await shown.innerText();
  // It moves on with the run.
  await expect(shown).not.toHaveText(firstShown, { timeout: 60_000 });
  // A pick stops following: the picked step stays while the run goes on. The list stops scrolling
  // to the newest row first, and the row is found by its id: `.first()` is resolved again at the
  // click, and a list that moved on with the run would have another row first by then.
  await page.getByRole("checkbox", { name: "Follow live" }).uncheck();
  const steps = page.getByRole("list", { name: "Steps" });
  const picked = await steps.locator("[data-step-id]").first().getAttribute("data-step-id");
  const pick = steps.locator(`[data-step-id="${picked}"]`);
  await pick.click();
  await expect(page).toHaveURL(/step=run_/);
  await expect(following).toBeHidden();
  await expect(shown).toHaveText(picked!);
  // And the way back.
  await page.getByTestId("follow-live-step").click();
  await expect(following).toBeVisible();
  await expect(page).not.toHaveURL(/step=/);
  const taskId = new URL(page.url()).pathname.split("/").pop();
  expect((await page.request.post("/api/trpc/task.cancel", { data: { json: { taskId } } })).status()).toBe(200);
});

test("an escalation card with a long fact value stays inside its pane, its buttons in view", async ({ page, request }) => {
  const long = `https://example.test/${"segment".repeat(60)}`;
  const res = await request.post("/api/trpc/task.launch", {
    data: { json: { goal: README_GOAL, profile: "scripted-loop", facts: { "notes:source": long, [`key:${"k".repeat(120)}`]: "short" } } },
  });
  expect(res.status(), await res.text()).toBe(200);
  const taskId = ((await res.json()) as { result: { data: { json: { taskId: string } } } }).result.data.json.taskId;
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });
  await page.getByRole("link", { name: "Decide" }).click();
  const card = page.getByTestId("context-card");
  await expect(card.getByTestId("fact-editor")).toContainText("notes:source");
  const escalationUrl = page.url();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(escalationUrl);
    await expect(card.getByTestId("fact-editor")).toContainText("notes:source");
    expect(await widerThan(page, "section[aria-label='Context card']"), `card at ${width}px: wider than its pane`).toEqual([]);
    for (const name of ["Add fact", "Mark dead end"]) {
      const button = card.getByRole("button", { name, exact: true });
      await button.scrollIntoViewIfNeeded();
      const b = (await button.boundingBox())!;
      expect(b.x, `${name} at ${width}px`).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width, `${name} at ${width}px: cut off`).toBeLessThanOrEqual(width);
    }
    await expectFits(page, `/escalations with a long fact at ${width}px`);
  }
});

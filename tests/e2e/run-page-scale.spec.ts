import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { profileIdOrThrow, seedLongTask, seedManyTasks, type SeededLongTask } from "../../scripts/lib/seed-ui.ts";

// The run page and the task list at the scale of real use, over rows bulk-inserted into the e2e
// stack's database (scripts/lib/seed-ui.ts: the rows the write paths produce): a 1,500-step task in
// two runs (initial failed, resumed from its last checkpoint), and 300 short tasks, many sharing a goal.

const pgPort = Number(process.env.E2E_PG_PORT ?? 54429);
const prefix = `e${Date.now().toString(36)}`;
let long: SeededLongTask;

test.beforeAll(async () => {
  const client = new pg.Client({ connectionString: `postgresql://postgres:postgres@127.0.0.1:${pgPort}/longhaul` });
  await client.connect();
  try {
    const profileId = await profileIdOrThrow(client);
    long = await seedLongTask(client, { prefix, steps: 1500, profileId, start: new Date(Date.now() - 3 * 3_600_000) });
    await seedManyTasks(client, { prefix, count: 300, profileId, start: new Date(Date.now() - 4 * 3_600_000) });
  } finally {
    await client.end();
  }
});

const stepRows = (page: Page) => page.getByRole("list", { name: "Steps" }).getByRole("listitem");

async function noHorizontalOverflow(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, "the page must not scroll sideways").toBeLessThanOrEqual(clientWidth);
}

test("a long run filtered to its failed steps: open one, j/k move through the matches, the waterfall follows", async ({ page }) => {
  // The waterfall is folded away by default (wf=1 shows it).
  await page.goto(`/tasks/${long.taskId}?wf=1`);
  await expect(stepRows(page).first()).toBeVisible();
  await expect(page.getByTestId("match-count")).toContainText(`${long.steps} steps`);

  await page.getByRole("button", { name: "failed", exact: true }).click();
  await expect(page).toHaveURL(/failed=1/);
  await expect(page.getByTestId("match-count")).toHaveText(new RegExp(`^${long.failedSteps} of ${long.steps} steps match`));
  const rows = stepRows(page);
  await expect(rows.first()).toHaveAttribute("data-status", "failed");
  for (const status of await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-status")))) expect(status).toBe("failed");

  // Open the first failed step: its error comes first in the panel.
  await rows.first().click();
  await expect(page).toHaveURL(/step=run_/);
  const detail = page.getByTestId("step-detail");
  await expect(detail.getByRole("alert")).toContainText("ENOENT");
  const first = await rows.first().getAttribute("data-step-id");

  // j moves to the next failed step (not the next step of the run).
  await page.locator("body").press("j");
  const second = rows.nth(1);
  await expect(second).toHaveAttribute("aria-current", "true");
  expect(await second.getAttribute("data-step-id")).not.toBe(first);
  await expect(second).toHaveAttribute("data-status", "failed");

  // The waterfall shows the selected step's segment; its selected bar is the step.
  const waterfall = page.getByTestId("waterfall");
  await expect(waterfall).toContainText(/Waterfall · run \d, segment \d+ · \d+ steps over/);
  await expect(waterfall.locator(".recharts-bar-rectangle").first()).toBeVisible();

  // Above it, the whole run's time at a glance, with the waterfall's window framed; a click at its
  // far left opens the task's first step (and the waterfall follows to that segment).
  const overview = page.getByTestId("run-overview");
  await expect(overview).toContainText(/Whole time .+ · \d+ seg\./);
  await expect(overview.getByTestId("overview-window-frame")).toBeVisible();
  await expect(overview.getByTestId("overview-window")).toHaveText(/^window \d+–\d+ %$/);
  await overview.locator("svg").click({ position: { x: 1, y: 14 } });
  await expect(page).toHaveURL(new RegExp(`step=${long.runIds[0]}(%3A|:)model-0`));
  await expect(waterfall).toContainText(/Waterfall · run 1, segment 1 ·/);
  await expect(overview.getByTestId("overview-window")).toHaveText(/^window 0–\d+ %$/);

  // Text search on the server (arguments and output): "src/file-6.ts" is read by tool-6-0 of each run (model-6 asked for it).
  await page.getByRole("button", { name: "Clear", exact: true }).click();
  await page.getByLabel("Search steps").fill("src/file-6.ts");
  await expect(page).toHaveURL(/q=src/);
  await expect(page.getByTestId("match-count")).toHaveText(/^4 of \d+ steps match/);
  await expect(stepRows(page)).toHaveCount(4);
});

test("leaving the run page while its full step list loads cancels that request", async ({ page }) => {
  // The full list (no `limit`: the newest 10,000 steps) is held on its way to the server, so it is
  // still in flight when the user leaves for the task list through the nav bar (a client-side
  // navigation: the page, and its fetches, live on). The browser must give the request up — the
  // server then cancels its query (server/db/cancellable-query.ts) — rather than let it run on.
  let held = false;
  await page.route("**/api/trpc/task.steps?**", async (route) => {
    const input = new URL(route.request().url()).searchParams.get("input") ?? "";
    if (input.includes('"limit"')) return route.continue();
    held = true; // never answered: only the page can end it
  });
  const abandoned = page.waitForEvent("requestfailed", (r) => r.url().includes("/api/trpc/task.steps?") && !r.url().includes("limit"));
  await page.goto(`/tasks/${long.taskId}`);
  await expect(stepRows(page).first()).toBeVisible();
  await expect.poll(() => held).toBe(true);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Tasks", exact: true }).click();
  await expect(page).toHaveURL(/\/tasks$/);
  expect((await abandoned).failure()?.errorText).toMatch(/ABORTED/);
});

test("switch between the runs of a resumed task; segments fold; a model step shows its cost and rebuilt prompt", async ({ page }) => {
  await page.goto(`/tasks/${long.taskId}`);
  const switcher = page.getByTestId("run-switcher");
  await expect(switcher.getByRole("tab")).toHaveCount(3);
  await switcher.getByRole("tab", { name: /Run 1 · initial/ }).click();
  await expect(page).toHaveURL(new RegExp(`run=${long.runIds[0]}`));
  await expect(stepRows(page).first()).toHaveAttribute("data-run-id", long.runIds[0]);
  const resume = switcher.getByRole("tab", { name: /Run 2 · resume from checkpoint #\d+/ });
  await expect(resume).toContainText("completed");
  await resume.click();
  await expect(page).toHaveURL(new RegExp(`run=${long.runIds[1]}`));
  await expect(stepRows(page).first()).toHaveAttribute("data-run-id", long.runIds[1]);
  for (const run of await stepRows(page).evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")))) expect(run).toBe(long.runIds[1]);

  // Segments are groups: fold them all and no step row is left; unfold one and its steps come back.
  await page.getByRole("button", { name: "Collapse segments" }).click();
  await expect(stepRows(page)).toHaveCount(0);
  const header = page.getByTestId("segment-header").last();
  await expect(header).toHaveAttribute("aria-expanded", "false");
  await expect(header).toContainText(/Segment \d+\s*from (checkpoint \(interval\)|the run's start)\s*· \d+ steps/);
  const segment = (await header.getAttribute("data-segment"))!;
  await header.click();
  // Its steps are listed again (the list follows live to its end, where this last segment is).
  await expect(stepRows(page).first()).toHaveAttribute("data-run-id", long.runIds[1]);
  expect(segment.startsWith(`${long.runIds[1]}#`)).toBe(true);
  await page.getByRole("button", { name: "Expand" }).click();

  // A model step: dollars beside tokens, the prompt with the checkpoint context marked, Fork beside it.
  await page.goto(`/tasks/${long.taskId}?step=${long.runIds[0]}:model-25`);
  const detail = page.getByTestId("step-detail");
  await expect(detail.getByTestId("step-usage")).toContainText(/out · \$0\.\d{4}/);
  await detail.getByTestId("prompt").locator("summary").click();
  await expect(detail.getByTestId("prompt")).toContainText(/checkpoint #\d+ context/);
  await expect(detail.locator('[data-context="checkpoint"]')).toHaveCount(2);
  await expect(detail.getByTestId("fork-step")).toHaveText(/Fork from checkpoint #1$/);
  await expect(detail).toContainText(/started \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
});

test("the task list: completed with gaps as an outcome filter and in the status cell; j/k select, Enter opens", async ({ page }) => {
  await page.goto(`/tasks?q=${prefix}`);
  const rows = page.locator("[data-task-id]");
  await expect(rows.first()).toBeVisible();
  await page.getByLabel("Outcome").selectOption("completed_with_gaps");
  await expect(page).toHaveURL(/outcome=completed_with_gaps/);
  // Every 24th seeded task from the 9th (scripts/lib/seed-ui.ts): 9, 33, …, 297 of 300.
  await expect(page.getByTestId("task-count")).toHaveText("13 matching tasks");
  await expect(rows.first()).toHaveAttribute("data-task-id", `task_${prefix}000297`);
  for (const text of await rows.allTextContents()) expect(text).toContain("with gaps");

  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur()); // keys act outside inputs only
  await page.keyboard.press("j");
  await expect(rows.nth(0)).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await page.keyboard.press("k");
  await expect(rows.nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(rows.nth(0)).toHaveAttribute("aria-selected", "false");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/tasks/task_${prefix}000273$`));
});

test("/costs: completed with gaps is an outcome of its own, and still completed", async ({ page }) => {
  await page.goto("/costs");
  const gaps = page.getByTestId("by-outcome").locator('[data-key="completed_with_gaps"]');
  await expect(gaps.getByRole("rowheader")).toHaveText("Completed with gaps");
  // The seeded 13 at least (other specs' tasks may add some); each one counts as completed.
  const [tasks, completed] = await gaps.locator("td").evaluateAll((cells) => cells.slice(0, 2).map((c) => Number(c.textContent)));
  expect(tasks).toBeGreaterThanOrEqual(13);
  expect(completed).toBe(tasks);
  await expect(gaps.getByRole("link")).toHaveAttribute("href", /status=completed&outcome=completed_with_gaps/);
  // The outcome filter keeps only that row.
  await page.getByRole("combobox", { name: "Outcome" }).selectOption("completed_with_gaps");
  await expect(page).toHaveURL(/outcome=completed_with_gaps/);
  await expect(page.getByTestId("by-outcome").locator("[data-key]")).toHaveCount(1);
  await expect(page.getByTestId("by-outcome").locator('[data-key="completed_with_gaps"]')).toBeVisible();
});

test("the task list: filtered, searched and sorted on the server, in the URL; same goals told apart", async ({ page }) => {
  await page.goto("/tasks");
  await expect(page.locator("[data-task-id]").first()).toBeVisible();
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/status=failed/);
  await page.getByLabel("Search goal or id").fill("the broken ones");
  await expect(page).toHaveURL(/q=the\+broken\+ones|q=the%20broken%20ones/);
  await expect(page.getByTestId("task-count")).toHaveText(/^\d+ matching tasks?$/);
  const rows = page.locator("[data-task-id]");
  await expect(rows.first()).toBeVisible();
  for (const text of await rows.allTextContents()) {
    expect(text).toContain("Failed");
    expect(text).toContain("Check every link in the docs folder and list the broken ones.");
  }
  // Ids and launch times tell tasks with the same goal apart.
  const ids = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-task-id")));
  expect(new Set(ids).size).toBe(ids.length);
  await expect(rows.first()).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

  // Search by the short id shown in the ID column.
  const one = `${prefix}000123`;
  await page.goto(`/tasks?q=${one}`);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-task-id", `task_${one}`);

  // Oldest first, reloaded from the URL.
  await page.goto(`/tasks?sort=oldest&q=${prefix}`);
  await expect(page.getByLabel("Sort")).toHaveValue("oldest");
  await expect(rows.first()).toHaveAttribute("data-task-id", `task_${prefix}000000`);
});

for (const width of [1280, 1920]) {
  test(`nothing is clipped at ${width} px: the task list, the run page and the inbox never scroll sideways`, async ({ page }, testInfo) => {
    await page.setViewportSize({ width, height: 900 });
    await page.goto("/tasks");
    await expect(page.locator("[data-task-id]").first()).toBeVisible();
    await noHorizontalOverflow(page);
    // The table scrolls sideways inside itself when it is wider than the room it has; the Duration column is reachable.
    const scroller = page.getByTestId("task-table-scroll");
    await scroller.evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await expect(page.getByRole("columnheader", { name: "Duration" })).toBeInViewport();
    await page.screenshot({ path: testInfo.outputPath(`tasks-${width}.png`) });

    await page.goto(`/tasks/${long.taskId}?step=${long.runIds[1]}:model-3&wf=1`);
    await expect(page.getByTestId("step-detail")).toBeVisible();
    await expect(page.getByTestId("waterfall")).toBeVisible();
    await noHorizontalOverflow(page);
    await page.screenshot({ path: testInfo.outputPath(`run-page-${width}.png`) });

    await page.goto("/escalations?status=all");
    await expect(page.getByRole("heading", { name: "Escalations" })).toBeVisible();
    await noHorizontalOverflow(page);
    await page.screenshot({ path: testInfo.outputPath(`escalations-${width}.png`) });
  });
}

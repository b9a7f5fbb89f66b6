import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { launchLoopUntilEscalated } from "./helpers.ts";

// The screenshots that show the pages at work, listed in docs/screenshots/README.md. Written
// only with LONGHAUL_SCREENSHOTS=1 (`LONGHAUL_SCREENSHOTS=1 npx playwright test tests/e2e/screenshots.spec.ts`
// after `npx next build`): the normal test run skips this file and writes nothing. Each shot is
// the viewport (1280 × 800, the run page also at 800 × 900), taken once the page shows its data.

const OUT = resolve(import.meta.dirname, "../../docs/screenshots");
const WIDE = { width: 1280, height: 800 };

test.skip(process.env.LONGHAUL_SCREENSHOTS !== "1", "screenshots only with LONGHAUL_SCREENSHOTS=1");

/** Saves the viewport of `page` as docs/screenshots/<name>.png (no animations, caret hidden). */
async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: resolve(OUT, `${name}.png`), animations: "disabled", caret: "hide" });
}

test("screenshots for the note: task list, run page, escalation card, costs, admin users, eval report, run page at 800 px", async ({ page, request }) => {
  test.setTimeout(300_000);
  mkdirSync(OUT, { recursive: true });
  await page.setViewportSize(WIDE);

  // Data: a completed audit, an eval run of two audit sizes, and a run waiting on a handler (loop).
  const launched = await request.post("/api/trpc/task.launch", { data: { json: { demo: { kind: "license-audit", limit: 8 }, profile: "scripted" } } });
  expect(launched.ok(), await launched.text()).toBe(true);
  const auditId = ((await launched.json()) as { result: { data: { json: { taskId: string } } } }).result.data.json.taskId;
  const apply = await request.post("/api/trpc/eval.applySuite", {
    data: {
      json: {
        name: "note-audits",
        description: "two audit sizes",
        cases: [3, 6].map((limit) => ({
          name: `audit-${limit}`,
          launch: { demo: { kind: "license-audit", limit } },
          checks: [{ kind: "artifact", name: "licenses.csv", expected: "license-audit" }],
        })),
      },
    },
  });
  expect(apply.ok(), await apply.text()).toBe(true);
  await page.goto("/evals");
  const form = page.getByRole("form", { name: "Start an eval run" });
  await form.getByLabel("Suite").selectOption("note-audits");
  await form.getByLabel("scripted", { exact: true }).check();
  await form.getByLabel("scripted-sloppy", { exact: true }).check();
  await form.getByRole("button", { name: "Start eval run" }).click();
  await expect(page).toHaveURL(/\/evals\/runs\/evalrun_/);
  const evalUrl = page.url();
  await launchLoopUntilEscalated(page);
  // The escalation inbox with the loop's card open.
  await page.getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);
  await expect(page.getByTestId("context-card")).toBeVisible();
  await shot(page, "escalation-card");

  // The run page of the completed audit: overview header, timeline, a step open.
  await page.goto(`/tasks/${auditId}`);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
  await page.locator('[data-kind="tool"]').filter({ hasText: "record_fact" }).first().click();
  await expect(page.getByTestId("step-detail")).toContainText("record_fact");
  await shot(page, "run-page-1280");
  await page.setViewportSize({ width: 800, height: 900 });
  await expect(page.getByTestId("step-detail")).toBeVisible();
  await shot(page, "run-page-800");
  await page.setViewportSize(WIDE);

  await page.goto("/tasks");
  await expect(page.locator(`[data-task-id="${auditId}"]`)).toBeVisible();
  await shot(page, "task-list");

  await page.goto(evalUrl);
  await expect(page.getByTestId("eval-status")).toContainText("completed", { timeout: 240_000 });
  await expect(page.getByTestId("report-scripted")).toBeVisible();
  await shot(page, "eval-report");

  await page.goto("/costs");
  await expect(page.getByTestId("headline-cpc")).toContainText("$");
  await shot(page, "costs");

  await page.goto("/admin?section=users");
  await expect(page.getByRole("region", { name: "Users" })).toBeVisible();
  await shot(page, "admin-users");
});

import { resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { expectedLicenseCsv } from "../../server/tools/demo/license-audit.ts";

const LIMIT = 12;

test("an operator launches the license-audit demo in the browser and watches it complete live", async ({ page, request }) => {
  await page.goto("/tasks/new");
  await expect(page.getByRole("heading", { name: "Launch a task" })).toBeVisible();
  await page.getByLabel("Package limit").fill(String(LIMIT));
  await page.getByRole("button", { name: "Launch" }).click();

  // Straight to the run page; steps appear live without a reload.
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  await expect(page.getByRole("list", { name: "Steps" }).getByRole("listitem").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 120_000 });
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId("result-summary")).toContainText(`Audited ${LIMIT} packages`);

  // The CSV, downloaded from the Artifacts tab, matches the package.json files exactly.
  await page.getByRole("tab", { name: /Artifacts/ }).click();
  const link = page.getByRole("link", { name: "Download" });
  await expect(link).toBeVisible();
  const href = await link.getAttribute("href");
  const csv = await (await request.get(href!)).text();
  expect(csv).toBe(await expectedLicenseCsv(resolve(import.meta.dirname, "../.."), LIMIT));

  // One email in the outbox.
  await page.getByRole("tab", { name: /Outbox/ }).click();
  await expect(page.locator("[data-message-id]")).toHaveCount(1);
  await expect(page.getByText(`License audit: ${LIMIT} packages`)).toBeVisible();

  // Keyboard: k from no selection opens the first step; its payloads load, the selection is in the URL.
  await page.keyboard.press("k");
  await expect(page).toHaveURL(/step=run_[0-9a-z]+%3Amodel-0|step=run_[0-9a-z]+:model-0/);
  await expect(page.getByText("Model calls (one per HTTP attempt)")).toBeVisible();

  // The next launch says what this one cost before it starts: scaled per package to 1,000.
  await page.goto("/tasks/new");
  await page.getByLabel("Package limit").fill("1000");
  const estimate = page.getByTestId("launch-estimate");
  await expect(estimate).toContainText(/Estimated cost, from \d+ completed similar tasks?/);
  await expect(page.getByTestId("launch-estimate-note")).toContainText(
    /^From \d+ completed license-audit tasks? of profile scripted \(.*packages each\), scaled per package: median \$\S+ per package × 1,000 = /,
  );
  await page.getByLabel("A goal of my own").check();
  await expect(page.getByTestId("launch-estimate-note")).toContainText(/goal task|completed tasks? of profile scripted:/);
});

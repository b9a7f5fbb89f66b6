import { expect, test } from "@playwright/test";
import { MAX_FACT_VALUE_BYTES, MAX_GOAL_CHARS } from "../../lib/contracts/limits.ts";
import { README_GOAL } from "./helpers.ts";

test("the launch form counts against the launch limits and refuses before sending; the server's refusal still shows", async ({ page }) => {
  const launches: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/trpc/task.launch")) launches.push(r.url());
  });
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  const goal = page.getByLabel("Goal", { exact: true });

  // Goal one character over: the counter turns red and Launch sends nothing.
  await goal.fill("g".repeat(MAX_GOAL_CHARS + 1));
  await expect(page.getByTestId("goal-count")).toHaveText("20,001 of 20,000 characters");
  await expect(page.getByText(`Goal: at most ${MAX_GOAL_CHARS} characters (got ${MAX_GOAL_CHARS + 1})`)).toBeVisible();
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/new$/);

  // A fact over 16 KiB: named with its key and the limit.
  await goal.fill(README_GOAL);
  await expect(page.getByTestId("goal-count")).toHaveText(`${README_GOAL.length} of 20,000 characters`);
  const facts = page.getByLabel("Facts (optional)");
  await facts.fill(JSON.stringify({ note: "small", big: "x".repeat(MAX_FACT_VALUE_BYTES) }));
  await expect(page.getByTestId("facts-count")).toContainText('2 of 1,000 facts · 16 KiB of 1 MiB in all · largest "big" 16 KiB of 16 KiB');
  await expect(page.getByText(`Facts: "big": at most ${MAX_FACT_VALUE_BYTES} bytes of JSON (got ${MAX_FACT_VALUE_BYTES + 2})`)).toBeVisible();
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/new$/);

  // Not JSON: said so.
  await facts.fill("{oops");
  await expect(page.getByText(/^Facts: not valid JSON/)).toBeVisible();
  expect(launches).toEqual([]);

  // A dollar budget in exponent notation: refused as `cli launch --cost-budget 1e-3` is, with the same words.
  await facts.fill(JSON.stringify({ note: "small" }));
  const dollars = page.getByLabel("Dollar budget (USD)");
  await dollars.fill("1e-3");
  await expect(page.getByText("Dollar budget: a number of US dollars, e.g. 0.50")).toBeVisible();
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/new$/);
  expect(launches).toEqual([]);
  await dollars.fill("0.001");
  await expect(page.getByText(/^Dollar budget:/)).toHaveCount(0);
  await dollars.fill("");

  // Within the limits, but a workspace the server refuses: the server's message is shown, the input kept.
  await facts.fill(JSON.stringify({ note: "small" }));
  await expect(page.getByTestId("facts-count")).toHaveText('1 of 1,000 facts · 16 B of 1 MiB in all · largest "note" 7 B of 16 KiB');
  await page.getByLabel("Step budget").fill("3");
  await page.getByLabel("Workspace").fill("/no/such/longhaul/workspace");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page.getByRole("form", { name: "Launch a task" }).getByRole("alert")).toHaveText(
    'Workspace: "/no/such/longhaul/workspace" is not a directory on the server',
  );
  expect(launches.length).toBe(1);
  await expect(goal).toHaveValue(README_GOAL);
  await expect(facts).toHaveValue(JSON.stringify({ note: "small" }));
});

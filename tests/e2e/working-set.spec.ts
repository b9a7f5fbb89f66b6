import { expect, test } from "@playwright/test";
import { launchLoopUntilEscalated } from "./helpers.ts";

const LIMIT = 3;

test("the Working set tab lists each fact change blamed on its record_fact step; a step id selects that step", async ({ page }) => {
  await page.goto("/tasks/new");
  await expect(page.getByRole("heading", { name: "Launch a task" })).toBeVisible();
  await page.getByLabel("Package limit").fill(String(LIMIT));
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });

  // Timeline rows of steps that changed the working set carry a mark.
  await expect(page.getByTestId("fact-mark").first()).toBeVisible();
  await expect(page.getByTestId("fact-mark").first()).toHaveText(/^\+1 fact$/);

  await page.getByRole("tab", { name: /Working set/ }).click();
  const panel = page.getByTestId("working-set-panel");
  // The current working set: one license fact per package, the package list, the report and the email.
  const current = panel.getByTestId("current-facts");
  await expect(current.locator('tr[data-key^="license:"]')).toHaveCount(LIMIT);
  await expect(current.locator('tr[data-key="audit:packages"]')).toHaveCount(1);

  // History filtered to license facts: one group per package, each an added fact blamed on a tool step.
  await panel.getByLabel("Filter by key").fill("license:");
  await expect(page).toHaveURL(/keys=license(%3A|:)/);
  const history = panel.getByTestId("working-set-history");
  const groups = history.getByTestId("history-group");
  await expect(groups).toHaveCount(LIMIT);
  await expect(history.getByTestId("history-run")).toHaveText(["Run 1 · initial"]);
  for (let i = 0; i < LIMIT; i++) {
    const group = groups.nth(i);
    await expect(group).toHaveAttribute("data-cause", "record_fact");
    await expect(group).toHaveAttribute("data-step-id", /^tool-\d+-\d+$/);
    await expect(group.getByTestId("fact-change")).toHaveAttribute("data-kind", "added");
    await expect(group.getByTestId("fact-change")).toHaveAttribute("data-key", /^license:/);
  }

  // Clicking the blamed step id selects that step on the timeline and opens it: a record_fact call of that key.
  const second = groups.nth(1);
  const stepId = (await second.getAttribute("data-step-id"))!;
  const key = (await second.getByTestId("fact-change").getAttribute("data-key"))!;
  await second.getByTestId("blame-step").click();
  await expect(page).toHaveURL(new RegExp(`step=run_[0-9a-z]+(%3A|:)${stepId}`));
  await expect(page.getByRole("list", { name: "Steps" }).locator(`[data-step-id="${stepId}"]`)).toHaveAttribute("aria-current", "true");
  await expect(page.getByRole("tab", { name: "Step" })).toHaveAttribute("aria-selected", "true");
  await expect(page.getByText("tool · record_fact")).toBeVisible();
  const stepChanges = page.getByTestId("step-fact-changes");
  await expect(stepChanges).toContainText("Working set · +1 fact");
  await expect(stepChanges.getByTestId("fact-change")).toHaveAttribute("data-key", key);
});

test("the open Working set tab follows a resume live: a handler's fact edit is blamed on the human step, then the resumed run's facts", async ({
  page,
  request,
}) => {
  // scripted-loop records nothing and escalates on its 3rd identical call; resumed with guidance it reads the README and records it.
  await launchLoopUntilEscalated(page);

  await page.getByRole("tab", { name: /Working set/ }).click();
  const panel = page.getByTestId("working-set-panel");
  await expect(panel).toContainText("No change yet: the working set is empty.");

  // The handler resumes through the API with an edited fact; the page is not reloaded.
  const href = (await page.getByRole("link", { name: "Decide" }).getAttribute("href"))!;
  const escalationId = new URL(href, "http://x").searchParams.get("id")!;
  const res = await request.post("/api/trpc/escalation.decide", {
    data: {
      json: {
        escalationId,
        decision: "resume",
        guidance: "Stop listing the folder: read the README and finish.",
        factEdits: { "handler:hint": { read: "README.md" } },
      },
    },
  });
  expect(res.ok()).toBe(true);

  const history = panel.getByTestId("working-set-history");
  const edit = history.locator('[data-testid="history-group"][data-cause="human_edit"]');
  await expect(edit).toHaveCount(1, { timeout: 30_000 });
  await expect(edit).toHaveAttribute("data-step-id", /^human-/);
  await expect(edit.getByTestId("fact-change")).toHaveAttribute("data-key", "handler:hint");
  await expect(edit.getByTestId("fact-change")).toHaveAttribute("data-kind", "added");
  // The resumed run's record_fact steps appear under its own run header as it works.
  await expect(history.getByTestId("history-run").nth(1)).toHaveText(/^Run 2 · resume from checkpoint #\d+$/, { timeout: 60_000 });
  await expect(history.locator('[data-testid="history-group"][data-cause="record_fact"]').first()).toHaveAttribute("data-step-id", /^tool-\d+-\d+$/);

  // The edit's step id selects the human step on the timeline.
  const humanStepId = (await edit.getAttribute("data-step-id"))!;
  await edit.getByTestId("blame-step").click();
  await expect(page.getByRole("list", { name: "Steps" }).locator(`[data-step-id="${humanStepId}"]`)).toHaveAttribute("aria-current", "true");
  await expect(page.getByTestId("step-fact-changes").getByTestId("fact-change")).toHaveAttribute("data-key", "handler:hint");
});

import { type APIRequestContext, expect, test } from "@playwright/test";
import { e2ePorts } from "../../playwright.config.ts";
import { trpcCall as trpc } from "./helpers.ts";

// The resume/fork dialog: before a resume or fork starts, it says what is kept and what
// will be redone. From the header (latest checkpoint) nothing is redone after a cancel; from an
// older checkpoint in the Checkpoints tab it names the facts that will be established again; the
// header's Fork and the step detail's Fork open the new task, which links back to the original
// (and the original to its forks), and leave the original's status, result, steps and cost as they were.
//
// A cancel must land mid-run, yet a scripted run of 60 packages ends in about ten seconds: on a busy
// machine it ended between the test seeing the state it wanted and the click. So the tasks here run
// on scripted-responses (the only profile in the suite on the Responses route), and the test holds
// the run's next model call at the scripted server (a stall fault) before it cancels.
const faultsUrl = `http://127.0.0.1:${e2ePorts.modelPort}/control/faults`;

/** Holds the run still: arms a stall on the Responses route and waits until a model call has taken it. */
async function holdNextModelCall(request: APIRequestContext): Promise<void> {
  const armed = await request.post(faultsUrl, { data: { kind: "stall", route: "responses", phase: "before_headers", stallMs: 100_000 } });
  expect(armed.status()).toBe(201);
  await expect.poll(async () => ((await (await request.get(faultsUrl)).json()) as { faults: unknown[] }).faults.length, { timeout: 30_000 }).toBe(0);
}

/**
 * Ends the hold on the cancelled run's model call and waits until that call's spend is on the task. A
 * step in flight is not interrupted by a cancel, so the held call answers when its hold ends; left to
 * its 100 s stall it landed on the task's figures in the middle of a slow run of this test.
 */
async function releaseHeldCall(request: APIRequestContext, taskId: string): Promise<void> {
  const spent = (await trpc<OriginalFigures>(request, "task.get", { taskId })).usage.costUsd;
  const cleared = (await (await request.delete(faultsUrl)).json()) as { released: number };
  expect(cleared.released).toBe(1);
  await expect.poll(async () => (await trpc<OriginalFigures>(request, "task.get", { taskId })).usage.costUsd, { timeout: 30_000 }).toBeGreaterThan(spent);
}

test.afterEach(async ({ request }) => {
  await request.delete(faultsUrl);
});

test("header Resume… after a cancel redoes nothing; Resume from an older checkpoint names what is redone; Fork… opens a new task", async ({
  page,
  request,
}) => {
  const { taskId } = await trpc<{ taskId: string }>(
    request,
    "task.launch",
    { demo: { kind: "license-audit", limit: 60 }, profile: "scripted-responses" },
    true,
  );
  await expect.poll(async () => (await trpc<unknown[]>(request, "task.checkpoints", { taskId })).length, { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
  await holdNextModelCall(request);
  await trpc(request, "task.cancel", { taskId }, true);
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  await releaseHeldCall(request, taskId);

  // Header Resume…: from the latest checkpoint, every fact is kept.
  await page.getByRole("button", { name: "Resume…" }).click();
  const dialog = page.getByTestId("resume-dialog");
  await expect(dialog.getByTestId("resume-redo")).toHaveText("Nothing is redone: every fact the task holds now is kept.");
  await expect(dialog.getByTestId("resume-kept")).toContainText(/^Kept: \d+ facts/);
  await dialog.getByRole("button", { name: "Back" }).click();
  await expect(dialog).toBeHidden();

  // The oldest checkpoint in the Checkpoints tab: the dialog names what will be redone.
  await page.getByRole("tab", { name: /^Checkpoints \([1-9]/ }).click();
  await page
    .locator("[data-checkpoint-seq]")
    .last()
    .getByRole("button", { name: /Checkpoint #1/ })
    .click();
  await page.getByRole("button", { name: "Resume from here" }).click();
  await expect(page.getByRole("dialog")).toContainText("Resume from checkpoint #1");
  await expect(dialog.getByTestId("resume-redo")).toContainText(
    /^Redone: this is an older state than the latest\. \d+ facts? the task holds now will be established again \(.+\), and the \d+ steps? after this checkpoint are not carried over\./,
  );
  await dialog.getByRole("button", { name: "Back" }).click();

  // Header Resume… confirmed; once it completed, Fork… opens a new task and the original stays completed.
  await page.getByRole("button", { name: "Resume…" }).click();
  await dialog.getByRole("button", { name: "Confirm resume" }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId })).status, { timeout: 150_000 }).toBe("completed");
  await page.reload();
  const before = await trpc<OriginalFigures>(request, "task.get", { taskId });
  await page.getByRole("button", { name: "Fork…" }).click();
  await expect(page.getByRole("dialog")).toContainText("Fork from checkpoint #");
  await expect(dialog).toContainText("A fork is a new task linked to this one");
  await dialog.getByRole("button", { name: "Confirm fork" }).click();
  await expect(page).not.toHaveURL(new RegExp(`/tasks/${taskId}$`));
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  const forkId = new URL(page.url()).pathname.split("/").pop()!;

  // The new task links back to the original and the checkpoint it branched from.
  const forkedFrom = page.getByTestId("task-forked-from");
  await expect(forkedFrom).toHaveText(new RegExp(`^Forked from ${taskId} at checkpoint #\\d+$`));
  // The fork runs to its end as a task of its own; the original's figures stay as they were.
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId: forkId })).status, { timeout: 150_000 }).toBe("completed");
  await forkedFrom.getByRole("link", { name: taskId }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${taskId}$`));
  await expect(page.getByTestId("task-fork-list").getByRole("link", { name: forkId })).toHaveAttribute("href", `/tasks/${forkId}`);
  await expect(page.getByTestId("task-fork-list")).toContainText(`${forkId} (completed, from #`);
  expect(figures(await trpc<OriginalFigures>(request, "task.get", { taskId }))).toEqual(figures(before));

  // The step detail's "Fork from checkpoint #n" goes through the same dialog and opens the new task.
  const steps = await trpc<{ runIds: string[]; rowsJson: string }>(request, "task.steps", { taskId });
  const rows = JSON.parse(steps.rowsJson) as [number, string, number, string][];
  const step = rows.filter(([ri, , , kind]) => ri === 0 && kind === "model").at(-1)!;
  await page.goto(`/tasks/${taskId}?step=${steps.runIds[0]}:${step[1]}`);
  const forkStep = page.getByTestId("step-detail").getByTestId("fork-step");
  const seq = /#(\d+)$/.exec((await forkStep.textContent())!)![1]!;
  await forkStep.click();
  await expect(page.getByRole("dialog")).toContainText(`Fork from checkpoint #${seq}`);
  await expect(dialog).toContainText("A fork is a new task linked to this one");
  await dialog.getByRole("button", { name: "Confirm fork" }).click();
  await expect(page).not.toHaveURL(new RegExp(`/tasks/(${taskId}|${forkId})(\\?|$)`));
  await expect(page.getByTestId("task-forked-from")).toHaveText(`Forked from ${taskId} at checkpoint #${seq}`);
  const secondId = new URL(page.url()).pathname.split("/").pop()!;
  await page.getByTestId("task-forked-from").getByRole("link", { name: taskId }).click();
  await expect(page.getByTestId("task-fork-list").getByRole("link")).toHaveText([forkId, secondId]);
  expect(figures(await trpc<OriginalFigures>(request, "task.get", { taskId }))).toEqual(figures(before));
});

test("cancel mid-run, then header Resume: every fact the run had recorded is kept and none is recorded again", async ({ page, request }) => {
  // A cancelled run with 35 facts whose last checkpoint held 17 once redid 47 steps when resumed.
  // Here the run is cancelled from the header while it holds more facts than its last checkpoint.
  const { taskId } = await trpc<{ taskId: string }>(
    request,
    "task.launch",
    { demo: { kind: "license-audit", limit: 60 }, profile: "scripted-responses" },
    true,
  );
  const factsNow = async () => (await trpc<{ facts: unknown[] }>(request, "task.get", { taskId })).facts.length;
  const lastCheckpoint = async () => (await trpc<{ seq: number; facts: number }[]>(request, "task.checkpoints", { taskId })).at(-1);
  await page.goto(`/tasks/${taskId}`);
  // Cancel (from the header, the page already open) once the run holds 5 facts more than its last checkpoint.
  let held = { seq: 0, facts: 0 };
  await expect
    .poll(
      async () => {
        const cp = await lastCheckpoint();
        if (!cp) return -1;
        held = cp;
        return (await factsNow()) - cp.facts;
      },
      { timeout: 90_000, intervals: [200] },
    )
    .toBeGreaterThanOrEqual(5);
  await holdNextModelCall(request);
  await page.getByRole("button", { name: "Cancel task" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel task" }).click();
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  // The cancel checkpoints the state after the step in flight (or, when the run had just taken one,
  // that one covers it): wait until the latest checkpoint holds every fact the task holds.
  let latest = held;
  await expect
    .poll(
      async () => {
        latest = (await lastCheckpoint())!;
        return latest.seq > held.seq && latest.facts === (await factsNow());
      },
      { timeout: 30_000, intervals: [200] },
    )
    .toBe(true);
  await page.getByRole("button", { name: "Resume…" }).click();
  const dialog = page.getByTestId("resume-dialog");
  await expect(dialog.getByTestId("resume-redo")).toHaveText("Nothing is redone: every fact the task holds now is kept.");
  await dialog.getByRole("button", { name: "Back" }).click();

  // What the cancelled run had established, as the Working set tab shows it: more than the
  // checkpoint seen before the cancel held (the case that once redid work).
  await page.reload();
  await page.getByRole("tab", { name: /^Working set/ }).click();
  const current = page.getByTestId("working-set-panel").getByTestId("current-facts");
  await expect(current.locator("tr[data-key]")).toHaveCount(latest.facts);
  const before = await current.locator("tr[data-key]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-key")!));
  expect(before.length).toBeGreaterThanOrEqual(held.facts + 5);

  // Header Resume… confirmed; the resumed run finishes the audit.
  await page.getByRole("button", { name: "Resume…" }).click();
  await dialog.getByRole("button", { name: "Confirm resume" }).click();
  await expect(dialog).toBeHidden();
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId })).status, { timeout: 150_000 }).toBe("completed");

  await page.reload();
  await page.getByRole("tab", { name: /^Working set/ }).click();
  const panel = page.getByTestId("working-set-panel");
  // Every fact of before is still there, and the working set only grew.
  const rowsAfter = panel.getByTestId("current-facts").locator("tr[data-key]");
  await expect(rowsAfter.first()).toBeVisible();
  const after = await rowsAfter.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-key")!));
  expect(before.filter((k) => !after.includes(k))).toEqual([]);
  expect(after.length).toBeGreaterThan(before.length);
  await expect(page.getByRole("tab", { name: /^Working set/ })).toHaveText(`Working set (${after.length})`);

  // The history of the resumed run: it starts from the cancel's checkpoint, removes nothing at its
  // start, and none of its record_fact steps records a fact the cancelled run had recorded.
  const history = panel.getByTestId("working-set-history");
  await expect(history.getByTestId("history-run")).toHaveText(["Run 1 · initial", /^Run 2 · resume from checkpoint #\d+$/]);
  const fromSeq = Number(/#(\d+)$/.exec((await history.getByTestId("history-run").nth(1).textContent())!)![1]);
  expect(fromSeq).toBeGreaterThanOrEqual(latest.seq);
  const changes = await history.getByTestId("history-group").evaluateAll((groups) => {
    let run = "";
    return groups.flatMap((g) => {
      run = g.querySelector('[data-testid="history-run"]')?.textContent ?? run;
      return [...g.querySelectorAll('[data-testid="fact-change"]')].map((c) => ({
        run,
        cause: g.getAttribute("data-cause"),
        kind: c.getAttribute("data-kind"),
        key: c.getAttribute("data-key")!,
      }));
    });
  });
  const resumed = changes.filter((c) => c.run.startsWith("Run 2"));
  expect(resumed.length).toBeGreaterThan(0);
  expect(resumed.filter((c) => c.cause !== "record_fact" || c.kind !== "added")).toEqual([]);
  expect(resumed.filter((c) => before.includes(c.key))).toEqual([]);
});

interface OriginalFigures {
  status: string;
  result: unknown;
  usage: { steps: number; costUsd: number; productiveUsd: number; wastedUsd: number };
}

/** What a fork must leave as it was on the original: status, result, step count and spend. */
const figures = (t: OriginalFigures) => ({
  status: t.status,
  result: t.result,
  steps: t.usage.steps,
  costUsd: t.usage.costUsd,
  productiveUsd: t.usage.productiveUsd,
  wastedUsd: t.usage.wastedUsd,
});

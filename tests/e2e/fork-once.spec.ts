import { expect, test } from "@playwright/test";
import { trpcCall as trpc } from "./helpers.ts";

// Exactly once from the button, and forks that say what they redo: the license-audit demo checkpoints
// before its summary email, then sends it. The header's Fork… (from that checkpoint) lists the email
// as a side effect committed after the checkpoint, with Reuse / Do again; and a true double click on
// Confirm fork — two clicks in the same tick, both reaching the server — makes one fork.

test("the fork dialog lists the email sent after the checkpoint, and a double click on Confirm fork makes one fork", async ({ page, request }) => {
  const { taskId } = await trpc<{ taskId: string }>(request, "task.launch", { demo: { kind: "license-audit", limit: 3 }, profile: "scripted" }, true);
  await expect.poll(async () => (await trpc<{ status: string }>(request, "task.get", { taskId })).status, { timeout: 120_000 }).toBe("completed");

  await page.goto(`/tasks/${taskId}`);
  await page.getByRole("button", { name: "Fork…" }).click();
  const dialog = page.getByTestId("resume-dialog");
  await expect(page.getByRole("dialog")).toContainText("Fork from checkpoint #1");

  // The side effect the original committed after the checkpoint, reused by default: nothing is redone.
  const effects = dialog.getByTestId("fork-effects");
  await expect(effects.getByTestId("fork-effect")).toHaveCount(1);
  await expect(effects.getByTestId("fork-effect")).toContainText('email to compliance@example.com: "License audit: 3 packages"');
  const choice = effects.getByRole("combobox", { name: /What the fork does with email to compliance@example\.com/ });
  await expect(choice).toHaveValue("reuse");
  await expect(dialog.getByTestId("resume-redo")).toHaveText("Nothing is redone: every fact the task holds now is kept.");
  // Do again: the sentence says so; Reuse all takes it back.
  await choice.selectOption("redo");
  await expect(dialog.getByTestId("resume-redo")).toContainText("Done again: 1 side effect the original committed after this checkpoint, under new keys");
  await effects.getByRole("button", { name: "Reuse all" }).click();
  await expect(choice).toHaveValue("reuse");
  await expect(dialog.getByTestId("resume-redo")).toHaveText("Nothing is redone: every fact the task holds now is kept.");

  // A true double click: two clicks dispatched in the same tick, before the page re-renders (whatever
  // the button's disabled state would do), each calling task.fork. The client may batch both calls in
  // one HTTP request (tRPC's batch link): count the calls, and wait for every answer.
  let calls = 0;
  const answers: Promise<unknown>[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() !== "POST" || !path.startsWith("/api/trpc/")) return;
    const forks = decodeURIComponent(path.slice("/api/trpc/".length))
      .split(",")
      .filter((p) => p === "task.fork").length;
    if (forks === 0) return;
    calls += forks;
    answers.push(r.response());
  });
  await dialog.getByRole("button", { name: "Confirm fork" }).evaluate((button: HTMLButtonElement) => {
    button.click();
    button.click();
  });
  await expect.poll(() => calls).toBe(2);
  await Promise.all(answers);
  await expect(page).not.toHaveURL(new RegExp(`/tasks/${taskId}$`));

  // One fork, whichever answer the page took.
  const original = await trpc<{ forks: { taskId: string }[] }>(request, "task.get", { taskId });
  expect(original.forks).toHaveLength(1);
  await expect(page).toHaveURL(new RegExp(`/tasks/${original.forks[0]!.taskId}$`));
});

import { expect, test } from "@playwright/test";
import pg from "pg";
import { profileIdOrThrow, seedManyTasks } from "../../scripts/lib/seed-ui.ts";
import { createUser, signedInContext, type E2eUser } from "./helpers.ts";

// Nothing is offered that cannot be done: Fork… only with a checkpoint to branch from, the eval
// form only to who may start a run, and every "are you sure?" in the app's own dialog (a native
// confirm() would fail these tests: Playwright dismisses it, and the handler below throws).

const MANAGER: E2eUser = { email: "mo@e2e.test", name: "Mo", password: "mo-password-1", roles: ["manager"] };

async function trpc<T>(request: import("@playwright/test").APIRequestContext, path: string, input: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`/api/trpc/${path}`, { data: { json: input } })
    : await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

test.beforeEach(({ page }) => {
  page.on("dialog", (d) => {
    throw new Error(`a native ${d.type()} dialog was opened: ${d.message()}`);
  });
});

test("a task that ended before its first checkpoint is not offered Fork…, and says why", async ({ page, request }) => {
  // Seeded, not launched and cancelled: a cancel after the run's first finished step takes a
  // checkpoint of its own (server/db/cancel-checkpoint.ts), and the scripted model is quick enough
  // to finish one before the cancel lands. seedManyTasks' 6th task (index 5) is cancelled, with steps and no checkpoint.
  const pgPort = Number(process.env.E2E_PG_PORT ?? 54429);
  const prefix = `o${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: `postgresql://postgres:postgres@127.0.0.1:${pgPort}/longhaul` });
  await client.connect();
  try {
    await seedManyTasks(client, { prefix, count: 6, profileId: await profileIdOrThrow(client, "scripted-stall"), start: new Date() });
  } finally {
    await client.end();
  }
  const taskId = `task_${prefix}000005`;
  const task = await trpc<{ status: string; hasGoodCheckpoint: boolean }>(request, "task.get", { taskId });
  expect(task.status).toBe("cancelled");
  expect(task.hasGoodCheckpoint).toBe(false);
  await page.goto(`/tasks/${taskId}`);
  await expect(page.getByRole("button", { name: "Resume…" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Fork…" })).toHaveCount(0);
  await expect(page.getByTestId("fork-none")).toHaveText("No checkpoint to fork from: this task ended before its first checkpoint.");
});

test("Checkpoint now and Cancel task ask in the app's dialog; going back changes nothing", async ({ page, request }) => {
  // The budget scenario keeps running (new facts every turn, up to its step budget); the stall one
  // stops to wait on a human after a few quick steps, and a checkpoint request then finds no running run.
  const { taskId } = await trpc<{ taskId: string }>(
    request,
    "task.launch",
    { goal: "Examine every workspace entry and record what you find.", profile: "scripted-budget", stepBudget: 400 },
    true,
  );
  await page.goto(`/tasks/${taskId}`);
  // The live header re-renders with every step, so the header's buttons are pressed from the
  // keyboard (a click waits for them to hold still), again until the page is hydrated and the dialog opens.
  const dialog = page.getByRole("dialog");
  await expect(async () => {
    await page.getByRole("button", { name: "Checkpoint now" }).press("Enter");
    await expect(dialog).toContainText("Take a checkpoint now?", { timeout: 2_000 });
  }).toPass();
  await dialog.getByRole("button", { name: "Checkpoint now" }).click();
  // The request is taken: the button says so until the run takes the checkpoint after its turn in
  // flight — which the scripted model may do before the page's refetch shows the request.
  const requested = page.getByRole("button", { name: "Checkpoint requested" });
  await expect
    .poll(async () => {
      if (await requested.isVisible()) return true;
      return (await trpc<{ reason: string }[]>(request, "task.checkpoints", { taskId })).some((c) => c.reason === "on_request");
    })
    .toBe(true);

  await page.getByRole("button", { name: "Cancel task" }).press("Enter");
  await expect(dialog).toContainText("Cancel this task?");
  await dialog.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(dialog).toBeHidden();
  expect((await trpc<{ status: string }>(request, "task.get", { taskId })).status).not.toBe("cancelled");
  await page.getByRole("button", { name: "Cancel task" }).press("Enter");
  await dialog.getByRole("button", { name: "Cancel task" }).click();
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });
});

test("a manager reads /evals without the Start eval run form, and is told who starts runs", async ({ browser, baseURL, page, request }) => {
  const apply = await request.post("/api/trpc/eval.applySuite", {
    data: {
      json: {
        name: "e2e-offers",
        description: "one case",
        cases: [
          {
            name: "audit-2",
            launch: { demo: { kind: "license-audit", limit: 2 } },
            checks: [{ kind: "artifact", name: "licenses.csv", expected: "license-audit" }],
          },
        ],
      },
    },
  });
  expect(apply.ok(), await apply.text()).toBe(true);
  // An operator (the e2e admin holds every role) is offered the form.
  await page.goto("/evals");
  await expect(page.getByRole("form", { name: "Start an eval run" })).toBeVisible();

  await createUser(request, MANAGER);
  const manager = await (await signedInContext(browser, baseURL!, MANAGER)).newPage();
  await manager.goto("/evals");
  await expect(manager.getByTestId("suite-e2e-offers")).toBeVisible();
  await expect(manager.getByRole("form", { name: "Start an eval run" })).toHaveCount(0);
  await expect(manager.getByRole("button", { name: "Start eval run" })).toHaveCount(0);
  await expect(manager.getByTestId("eval-start-refused")).toContainText("Starting an eval run needs the operator role");
  await manager.context().close();
});

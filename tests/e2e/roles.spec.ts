import { expect, test, type Browser, type Page } from "@playwright/test";
import { createUser, launchGoalFromForm, launchLoopUntilEscalated, signedInContext, type E2eUser } from "./helpers.ts";

// Per role: what each sees and does, and what it is refused — in a real browser, each
// user in their own context (their own session cookie). The default context is the e2e admin.

const OPERATOR: E2eUser = { email: "olive@e2e.test", name: "Olive", password: "olive-password-1", roles: ["operator"] };
const HANDLER: E2eUser = { email: "hal@e2e.test", name: "Hal", password: "hal-password-1", roles: ["handler"] };
const MANAGER: E2eUser = { email: "mona@e2e.test", name: "Mona", password: "mona-password-1", roles: ["manager"] };

const GOAL = "Find out what this project is from the README in the workspace, record it as a fact, then finish.";

/** Opens a page as `user` (created through the admin API first); returns it with its context. */
async function pageAs(browser: Browser, adminPage: Page, baseURL: string, user: E2eUser): Promise<Page> {
  await createUser(adminPage.request, user);
  const context = await signedInContext(browser, baseURL, user);
  return context.newPage();
}

/** The nav's link labels. */
async function navLinks(page: Page): Promise<string[]> {
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Tasks" })).toBeVisible();
  return (await nav.getByRole("link").allTextContents()).map((t) => t.replace(/\d+$/, "").trim());
}

test("signed out: every page leads to sign-in, and the API answers 401 and changes nothing", async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/tasks/new");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Ftasks%2Fnew$/);
  await expect(page.getByRole("heading", { name: "Sign in to Longhaul" })).toBeVisible();
  await expect(page.getByTestId("first-user-note")).toHaveCount(0);
  const before = await page.request.get("/api/health");
  expect(before.status()).toBe(200);
  const launch = await page.request.post("/api/trpc/task.launch", { data: { json: { goal: GOAL, profile: "scripted" } } });
  expect(launch.status()).toBe(401);
  expect((await page.request.get("/api/live")).status()).toBe(401);
  expect((await page.request.get("/api/artifacts/art_anything")).status()).toBe(401);
  // Security headers on pages and API answers.
  const html = await page.request.get("/sign-in");
  expect(html.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(html.headers()["x-content-type-options"]).toBe("nosniff");
  expect(html.headers()["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(launch.headers()["x-content-type-options"]).toBe("nosniff");
  await context.close();
});

test("operator: launches and cancels their own task; sees no Escalations or Admin; is refused another's task and the inbox", async ({
  browser,
  baseURL,
  page: adminPage,
}) => {
  await adminPage.goto("/tasks");
  const page = await pageAs(browser, adminPage, baseURL!, OPERATOR);
  await page.goto("/tasks");
  await expect(page.getByTestId("signed-in-as")).toHaveText("Olive");
  expect(await navLinks(page)).toEqual(["Tasks", "Launch task", "Evals"]);

  // The admin's task (launched by "operator") cannot be cancelled by Olive: 403 naming the owner.
  const adminTask = await launchGoalFromForm(adminPage, { goal: GOAL, profile: "scripted-stall", stepBudget: 400 });
  const adminTaskId = adminTask.split("/").at(-1)!;
  // Its page offers the admin (its launcher) Cancel task, and Olive only the reading.
  await expect(adminPage.getByRole("button", { name: "Cancel task" })).toBeVisible();
  await page.goto(adminTask);
  await expect(page.getByText(GOAL).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Cancel task" })).toHaveCount(0);
  const refused = await page.request.post("/api/trpc/task.cancel", { data: { json: { taskId: adminTaskId } } });
  expect(refused.status()).toBe(403);
  expect(await refused.text()).toContain("was launched by operator");
  await adminPage.request.post("/api/trpc/task.cancel", { data: { json: { taskId: adminTaskId } } });

  // Her own task: launched from the form, cancelled from the run page.
  await launchGoalFromForm(page, { goal: GOAL, profile: "scripted-stall", stepBudget: 400 });
  await page.getByRole("button", { name: "Cancel task" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel task" }).click();
  await expect(page.getByText("Cancelled", { exact: true }).first()).toBeVisible({ timeout: 30_000 });

  await page.goto("/escalations");
  await expect(page.getByTestId("refused")).toContainText("needs the handler role");
  await page.goto("/admin");
  await expect(page.getByTestId("refused")).toContainText("needs the admin role");
  const decide = await page.request.post("/api/trpc/escalation.claim", { data: { json: { escalationId: "esc_none" } } });
  expect(decide.status()).toBe(403);
  expect(await decide.text()).toContain("this needs the handler role");
  await page.context().close();
});

test("handler: sees the inbox as themselves, cannot launch", async ({ browser, baseURL, page: adminPage }) => {
  await adminPage.goto("/tasks");
  const page = await pageAs(browser, adminPage, baseURL!, HANDLER);
  await page.goto("/escalations");
  await expect(page.getByTestId("handler-identity")).toContainText("Hal");
  await expect(page.getByLabel("Your name")).toHaveCount(0);
  expect(await navLinks(page)).toEqual(["Tasks", "Escalations", "Evals"]);
  await page.goto("/tasks/new");
  await expect(page.getByTestId("refused")).toContainText("Launching a task needs the operator role");
  const launch = await page.request.post("/api/trpc/task.launch", { data: { json: { goal: GOAL, profile: "scripted" } } });
  expect(launch.status()).toBe(403);
  expect(await launch.text()).toContain("task.launch: this needs the operator role");

  // Sign out ends the session: back to sign-in, and the pages lead there again.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/escalations");
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fescalations$/);
  expect((await page.request.get(`/api/trpc/account.me?input=${encodeURIComponent(JSON.stringify({ json: null }))}`)).status()).toBe(401);
  await page.context().close();
});

test("manager: reads every task, read-only; refused launching and deciding", async ({ browser, baseURL, page: adminPage }) => {
  await adminPage.goto("/tasks");
  const page = await pageAs(browser, adminPage, baseURL!, MANAGER);
  await page.goto("/tasks");
  expect(await navLinks(page)).toEqual(["Tasks", "Costs", "Evals"]);
  await expect(page.getByRole("heading", { name: "Tasks" })).toBeVisible();
  await expect(page.locator('a[href^="/tasks/task_"]').first()).toBeVisible();
  await page.goto("/costs");
  await expect(page.getByRole("heading", { name: "Costs" })).toBeVisible();
  const launch = await page.request.post("/api/trpc/task.launch", { data: { json: { goal: GOAL, profile: "scripted" } } });
  expect(launch.status()).toBe(403);
  const decide = await page.request.post("/api/trpc/escalation.decide", { data: { json: { escalationId: "esc_none", decision: "cancel" } } });
  expect(decide.status()).toBe(403);
  await page.context().close();
});

test("admin: manages roles, sees the audit log of human actions with a filter, and a role change takes effect at once", async ({ browser, baseURL, page }) => {
  await page.goto("/admin");
  await createUser(page.request, MANAGER);
  await page.reload();
  const row = page.locator(`[data-user-email="${MANAGER.email}"]`);
  await expect(row).toBeVisible();
  const managerPage = await (await signedInContext(browser, baseURL!, MANAGER)).newPage();
  await managerPage.goto("/tasks/new");
  await expect(managerPage.getByTestId("refused")).toBeVisible();

  // A role change is confirmed first.
  await row.getByLabel(`operator for ${MANAGER.email}`).click();
  await page.getByRole("dialog").getByRole("button", { name: "Give operator" }).click();
  await expect(row.getByLabel(`operator for ${MANAGER.email}`)).toBeChecked();
  // The box shows the change at once; the server's answer is the status line. Only after it does
  // the manager's next page see the role.
  await expect(page.getByTestId("users-done")).toContainText(/now holds .*operator/);
  await managerPage.reload();
  await expect(managerPage.getByLabel("A goal of my own")).toBeVisible();
  await row.getByLabel(`operator for ${MANAGER.email}`).click();
  await page.getByRole("dialog").getByRole("button", { name: "Take operator" }).click();
  await expect(row.getByLabel(`operator for ${MANAGER.email}`)).not.toBeChecked();
  await expect(page.getByTestId("users-done")).toContainText(/now holds manager\./);

  // The audit log: the role changes above, by the admin; filtered to admin actions.
  await page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Audit log" }).click();
  await page.getByLabel("Action").fill("admin.setRoles");
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toHaveAttribute("data-action", "admin.setRoles");
  await expect(rows.first()).toContainText("operator");
  await page.getByLabel("Action").fill("task.cancel");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(rows.first()).toHaveAttribute("data-action", "task.cancel");
  await managerPage.context().close();
});

/** Opens the Checkpoints tab of the task page `page` is on and unfolds its newest checkpoint. */
async function openNewestCheckpoint(page: Page): Promise<void> {
  await page.getByRole("tab", { name: /^Checkpoints \([1-9]/ }).click();
  await page
    .locator("[data-checkpoint-seq]")
    .first()
    .getByRole("button", { name: /Checkpoint #/ })
    .click();
}

test("task actions per role: the launcher and admins see Resume/Fork; another operator and a manager see none and read why; a handler sees Decide", async ({
  browser,
  baseURL,
  page: adminPage,
}) => {
  // A task of the admin's ("operator") waiting on a human, with the checkpoint taken before the escalation.
  const taskUrl = await launchLoopUntilEscalated(adminPage);
  const taskId = taskUrl.split("/").at(-1)!;
  await openNewestCheckpoint(adminPage);
  await expect(adminPage.getByRole("button", { name: "Resume from here" })).toBeVisible();
  await expect(adminPage.getByRole("button", { name: "Fork from here" })).toBeVisible();
  await expect(adminPage.getByRole("link", { name: "Decide" })).toBeVisible();
  const checkpointId = await adminPage.evaluate(async (id) => {
    const res = await fetch(`/api/trpc/task.checkpoints?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`);
    return ((await res.json()) as { result: { data: { json: { id: string }[] } } }).result.data.json[0]!.id;
  }, taskId);

  for (const user of [OPERATOR, MANAGER]) {
    const page = await pageAs(browser, adminPage, baseURL!, user);
    await page.goto(taskUrl);
    await expect(page.getByTestId("escalation-banner")).toBeVisible();
    // Header: no Cancel / Resume / Escalate; a line names the role needed instead.
    await expect(page.getByTestId("task-actions-refused")).toContainText(user === OPERATOR ? "launched by operator" : "needs the operator role");
    await expect(page.getByRole("button", { name: "Cancel task" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Escalate" })).toHaveCount(0);
    // The banner's Decide is for handlers.
    await expect(page.getByRole("link", { name: "Decide" })).toHaveCount(0);
    await expect(page.getByTestId("decide-refused")).toContainText("handler role");
    // Checkpoints tab: no Resume / Fork from here.
    await openNewestCheckpoint(page);
    await expect(page.getByTestId("checkpoint-actions-refused")).toBeVisible();
    await expect(page.getByRole("button", { name: "Resume from here" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Fork from here" })).toHaveCount(0);
    // Step tab: no Fork beside a step.
    await page.getByRole("tab", { name: "Step" }).click();
    await page.locator("[data-step-id]").first().click();
    await expect(page.getByTestId("fork-refused")).toBeVisible();
    await expect(page.getByTestId("fork-step")).toHaveCount(0);
    // And the API agrees: the hidden action is refused.
    const fork = await page.request.post("/api/trpc/task.fork", { data: { json: { taskId, checkpointId } } });
    expect(fork.status()).toBe(403);
    await page.context().close();
  }

  // A handler: Decide on the banner leads to the card with its decision buttons; no task actions.
  const handler = await pageAs(browser, adminPage, baseURL!, HANDLER);
  await handler.goto(taskUrl);
  await expect(handler.getByTestId("task-actions-refused")).toBeVisible();
  await handler.getByRole("link", { name: "Decide" }).click();
  const card = handler.getByTestId("context-card");
  await expect(card.getByRole("button", { name: "Resume" })).toBeEnabled();
  await expect(card.getByRole("button", { name: "Mark dead end" })).toBeVisible();
  await handler.context().close();
});

test("admin: resets a user's password from /admin (no email); the old password stops working, the new one signs in", async ({ page, baseURL }) => {
  const user: E2eUser = { email: "pia@e2e.test", name: "Pia", password: "pia-password-1", roles: ["manager"] };
  await page.goto("/admin");
  await createUser(page.request, user);
  await page.reload();
  const row = page.locator(`[data-user-email="${user.email}"]`);
  await row.getByRole("button", { name: "Reset password" }).click();
  await row.getByLabel(`New password for ${user.email}`).fill("pia-new-password-2");
  await row.getByRole("button", { name: "Set" }).click();
  await expect(page.getByTestId("users-done")).toContainText("Password set for Pia");
  const old = await page.request.post(`${baseURL}/api/auth/sign-in/email`, {
    data: { email: user.email, password: user.password },
    headers: { origin: baseURL! },
  });
  expect(old.status()).toBe(401);
  const fresh = await signedInContext(page.context().browser()!, baseURL!, { email: user.email, password: "pia-new-password-2" });
  await fresh.close();
  await page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Audit log" }).click();
  await page.getByLabel("Action").fill("admin.setPassword");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("audit-row").first()).toHaveAttribute("data-action", "admin.setPassword");
  await expect(page.getByTestId("audit-log")).not.toContainText("pia-new-password-2");
});

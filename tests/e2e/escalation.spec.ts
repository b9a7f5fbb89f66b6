import { expect, test } from "@playwright/test";
import { createUser, E2E_ADMIN, launchGoalFromForm, launchLoopUntilEscalated, signedInRequest, trpcCall, type E2eUser } from "./helpers.ts";

test("a handler opens the inbox, reads the context card, resumes with guidance, and watches the run finish", async ({ page }) => {
  // A loop scenario (scripted-loop: the same tool call again and again) escalates on its 3rd identical call.
  const taskUrl = await launchLoopUntilEscalated(page);

  // The inbox: the escalation with its context card.
  await page.getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);
  const card = page.getByTestId("context-card");
  await expect(card).toContainText("Loop: the same tool call with identical arguments");
  await expect(card).toContainText("Last steps");
  await expect(card).toContainText("list_files");
  // What happens if no one decides: said on the card, where the wait is shown.
  await expect(card.getByTestId("card-wait-timeout")).toContainText(/If no one decides by .* UTC: reminder 1 of 4 .*Nothing is decided on its own\./);
  await card.getByLabel("Guidance for the agent").fill("Stop listing the folder: read the README and finish.");
  await card.getByRole("button", { name: "Resume" }).click();
  // The decider need not wait out the undo window: Apply now applies it at once (the dollar-ceiling test waits it out).
  const banner = page.getByTestId("undo-banner");
  await expect(banner).toContainText("Resumed by you — decided, applies in");
  await banner.getByRole("button", { name: "Apply now" }).click();
  await expect(banner).toHaveCount(0);
  await expect(page.getByTestId("decided")).toContainText("resume by operator");
  await expect(page.getByTestId("decided")).toContainText("· applied");

  // Back on the run page, the resumed run finishes.
  await page.goto(taskUrl);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("run-line")).toContainText("resume");
  await expect(page.getByTestId("run-line")).toContainText("guidance");

  // The inbox's filter fields (the shared Field / Select): reason and assignee go to the URL, Clear empties them.
  await page.goto("/escalations?status=decided");
  const filters = page.getByRole("search", { name: "Filter escalations" });
  await filters.getByLabel("Reason").selectOption("loop");
  await expect(page).toHaveURL(/[?&]reason=loop(&|$)/);
  await filters.getByLabel("Assignee").fill("operator");
  await expect(page).toHaveURL(/[?&]assignee=operator(&|$)/);
  await expect(filters.getByLabel("Reason")).toHaveValue("loop");
  await filters.getByRole("button", { name: "Clear" }).click();
  await expect(page).not.toHaveURL(/reason=|assignee=/);
  await expect(filters.getByLabel("Reason")).toHaveValue("");
});

test("an operator escalates a running task by hand and a handler marks it a dead end", async ({ page }) => {
  // The budget scenario works until its budget: long enough to escalate by hand first.
  await launchGoalFromForm(page, { goal: "Examine every workspace entry and record what you find.", profile: "scripted-budget", stepBudget: 400 });
  await page.getByRole("button", { name: "Escalate" }).click();
  // A proper dialog (not the browser's prompt): a reason and an optional note.
  const dialog = page.getByRole("dialog", { name: "Escalate to a human" });
  await dialog.getByLabel("Reason").selectOption("Looks stuck or looping");
  await dialog.getByLabel("Note for the handler (optional)").fill("checking by hand");
  await dialog.getByRole("button", { name: "Escalate" }).click();
  await expect(dialog).toBeHidden();
  // The message names who escalated (the e2e admin's display name is "operator").
  await expect(page.getByTestId("escalation-banner")).toContainText(`Escalated by ${E2E_ADMIN.name}: Looks stuck or looping: checking by hand.`, {
    timeout: 60_000,
  });

  await page.getByRole("link", { name: "Decide" }).click();
  const card = page.getByTestId("context-card");
  await card.getByLabel("Dead-end reason").fill("Nothing to find here.");
  await card.getByRole("button", { name: "Mark dead end" }).click();
  await expect(page.getByTestId("decided")).toContainText("dead end by operator");
});

/** Another handler, signed in as themselves (the actor is the signed-in user, never a header). */
const BOB: E2eUser = { email: "bob@e2e.test", name: "Bob", password: "bob-password-1", roles: ["handler"] };

/** Calls a tRPC mutation as {@link BOB} (created through the admin API on first use, signed in with his password). */
async function mutateAsBob(page: import("@playwright/test").Page, procedure: string, input: Record<string, unknown>) {
  await createUser(page.request, BOB);
  const bob = await signedInRequest(new URL(page.url()).origin, BOB);
  const res = await bob.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.status(), await res.text()).toBe(200);
  await bob.dispose();
}

test("claim, the 10 s undo, a take-over, and a decision made elsewhere", async ({ page }) => {
  const taskUrl = await launchLoopUntilEscalated(page);
  await page.getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);
  const escalationId = new URL(page.url()).searchParams.get("id")!;
  const card = page.getByTestId("context-card");

  // Claim as the signed-in user ("operator", the e2e admin): the card and the list say who is on it.
  await card.getByRole("button", { name: "I’m on this" }).click();
  await expect(card.getByTestId("claim")).toContainText("operator is on this (you)");
  await expect(page.locator(`[data-escalation-id="${escalationId}"]`)).toContainText("operator is on this");

  // A decision gets a 10 s undo window with a countdown; Undo puts it back to open.
  await card.getByLabel("Guidance for the agent").fill("Stop listing the folder: read the README and finish.");
  await card.getByRole("button", { name: "Resume", exact: true }).click();
  const banner = page.getByTestId("undo-banner");
  await expect(banner).toContainText(/Resumed by you — decided, applies in ([1-9]|10) s/);
  const firstSeconds = Number(/applies in (\d+) s/.exec((await banner.textContent()) ?? "")![1]);
  await expect(banner).toContainText(`applies in ${firstSeconds - 1} s`);
  await expect(card.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await banner.getByRole("button", { name: /Undo/ }).click();
  await expect(banner).toHaveCount(0);
  await expect(card.getByRole("button", { name: "Resume", exact: true })).toBeEnabled();
  await expect(card.getByTestId("undos")).toContainText("resume by operator, taken back by operator");
  await expect(card.getByTestId("decided")).toHaveCount(0);

  // Another handler takes it over (explicitly, naming me); my card shows it and offers a take-over back.
  await mutateAsBob(page, "escalation.claim", { escalationId, takeOverFrom: "operator" });
  await expect(card.getByTestId("claim")).toContainText("Bob is on this", { timeout: 10_000 });
  // The app's own dialog (not the browser's confirm()) names who holds the claim; Escape cancels, the keyboard confirms.
  await card.getByRole("button", { name: "Take over" }).click();
  const takeOver = page.getByRole("dialog", { name: "Take over from Bob?" });
  await expect(takeOver).toContainText("Bob is on this");
  await expect(takeOver.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(takeOver).toHaveCount(0);
  await expect(card.getByTestId("claim")).toContainText("Bob is on this");
  await card.getByRole("button", { name: "Take over" }).click();
  await page.keyboard.press("Tab");
  await expect(takeOver.getByRole("button", { name: "Take over" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(card.getByTestId("claim")).toContainText("operator is on this (you)");

  // Bob decides, taking it over from me explicitly (a claim blocks anyone else's decision): my card disables the buttons and says who decided what.
  await mutateAsBob(page, "escalation.decide", { escalationId, decision: "resume", guidance: "Read the README and finish.", takeOverFrom: "operator" });
  await expect(card.getByTestId("decided")).toContainText("resume by Bob", { timeout: 10_000 });
  await expect(card.getByTestId("decided")).toContainText("already decided by someone else");
  await expect(card.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await expect(card.getByRole("button", { name: "Mark dead end" })).toBeDisabled();

  await page.goto(taskUrl);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 60_000 });
});

test("a task launched with 'Ask a human before risky actions' waits for approval of send_email; Approve lets it finish", async ({ page }) => {
  await page.goto("/tasks/new");
  await page.getByLabel("Package limit").fill("5");
  const ask = page.getByLabel("Ask a human before risky actions (send_email)");
  await expect(ask).not.toBeChecked();
  await ask.check();
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  const taskUrl = page.url();
  await expect(page.getByTestId("escalation-banner")).toBeVisible({ timeout: 90_000 });
  await page.getByRole("link", { name: "Decide" }).click();
  const card = page.getByTestId("context-card");
  const proposed = card.getByTestId("proposed-call");
  await expect(proposed).toContainText("send_email");
  await expect(proposed).toContainText(/"to": "[^"]+@example\.com"/);
  await expect(proposed).toContainText('"subject": "License audit: 5 packages"');
  // Approve / Reject come first, before Resume with guidance.
  const buttons = await card.getByRole("button").allTextContents();
  expect(buttons.indexOf("Approve")).toBeLessThan(buttons.indexOf("Resume with guidance"));
  expect(buttons.indexOf("Reject")).toBeLessThan(buttons.indexOf("Resume with guidance"));
  await card.getByRole("button", { name: "Approve" }).click();
  const banner = page.getByTestId("undo-banner");
  await expect(banner).toContainText("Approved by you — decided, applies in");
  // Apply now, double-clicked: applied once (the button waits on the first click; a repeat that
  // reaches the server is answered alreadyDue, tests/integration/escalation-undo.test.ts).
  await banner.getByRole("button", { name: "Apply now" }).dblclick();
  await expect(card.getByTestId("decided")).toContainText("· applied");
  await expect(card.getByTestId("decided")).toContainText("approve by operator");
  await page.goto(taskUrl);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 90_000 });
  const { runs } = await trpcCall<{ runs: { cause: string; status: string }[] }>(page.request, "task.get", { taskId: taskUrl.split("/").at(-1)! });
  expect(runs.map((r) => `${r.cause}:${r.status}`).sort()).toEqual(["initial:escalated", "resume:completed"]);
});

/** Calls a tRPC query (superjson envelope) and returns its data. */
async function query<T>(page: import("@playwright/test").Page, procedure: string, input: Record<string, unknown>): Promise<T> {
  const res = await page.request.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

test("a dollar ceiling: the card names it and focuses Extra dollars; the handler adds dollars and a fact and resumes; the task completes with the fact", async ({
  page,
}) => {
  // The license-audit demo with a tiny dollar budget (the scripted profile's notional prices make 5 packages cost a few tenths of a cent).
  await page.goto("/tasks/new");
  await page.getByLabel("Package limit").fill("5");
  const dollarBudget = page.getByLabel("Dollar budget (USD)");
  await dollarBudget.fill("0");
  await expect(page.getByText("Dollar budget: from 0.000001 to 999999 (USD)")).toBeVisible();
  await dollarBudget.fill("0.002");
  await expect(page.getByText("Dollar budget: from 0.000001")).toHaveCount(0);
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  const taskUrl = page.url();
  const taskId = taskUrl.split("/").at(-1)!;
  await expect(page.getByTestId("escalation-banner")).toBeVisible({ timeout: 90_000 });
  await page.getByRole("link", { name: "Decide" }).click();
  await expect(page).toHaveURL(/\/escalations\?id=esc_/);

  // The card says which ceiling was hit (used vs limit), shows dollars against the budget, and focuses Extra dollars.
  const card = page.getByTestId("context-card");
  await expect(card).toContainText("Budget ceiling reached");
  await expect(card.getByTestId("ceiling")).toContainText(/Stopped at the dollar ceiling: \$0\.0\d{3} used of \$0\.0020/);
  await expect(card.getByTestId("spend")).toContainText(/Dollars\$0\.0\d{3} \/ \$0\.0020/);
  const extraDollars = card.getByLabel("Extra dollars");
  await expect(extraDollars).toBeFocused();
  await expect(card).toContainText("without a raise the run stops again at once");
  await extraDollars.fill("1");
  await expect(card).toContainText("→ $1.00");
  await expect(card).not.toContainText("without a raise the run stops again at once");

  // A fact: invalid JSON is named inline and blocks Resume; valid JSON unblocks it.
  await card.getByRole("button", { name: "Add fact" }).click();
  await card.getByLabel("New fact key").fill("handler:note");
  await card.getByLabel("New fact key").press("Enter");
  const value = card.getByLabel("Value of handler:note (JSON)");
  await expect(value).toBeFocused();
  await value.fill("{checked: yes}");
  await expect(card).toContainText('Fact "handler:note": not valid JSON');
  await expect(card.getByRole("button", { name: "Resume", exact: true })).toBeDisabled();
  await value.fill('{"checked": "by hand"}');
  await expect(card).not.toContainText("not valid JSON");
  await card.getByRole("button", { name: "Resume", exact: true }).click();

  // The 10 s undo window passes (waited for by its state, not slept), then it is applied.
  await expect(page.getByTestId("undo-banner")).toContainText("Resumed by you — decided, applies in");
  await expect(card.getByTestId("decided")).toContainText("· applied", { timeout: 30_000 });
  await page.goto(taskUrl);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 90_000 });

  // The resumed run started from the edited working set: the fact is there, blamed on the human step.
  const current = await query<{ facts: { key: string; value: unknown; change: { stepId: string | null; cause: string } | null }[] }>(
    page,
    "workingSet.current",
    { taskId, keyPrefix: "handler:", limit: 10 },
  );
  expect(current.facts).toEqual([
    expect.objectContaining({ key: "handler:note", value: { checked: "by hand" }, change: expect.objectContaining({ cause: "human_edit" }) }),
  ]);
});

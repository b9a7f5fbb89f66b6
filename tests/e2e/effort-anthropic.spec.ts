import { expect, test, type Page } from "@playwright/test";
import { compactNumber } from "../../components/tasks/format.ts";
import { effortRuleLabel, RECOMMENDED_EFFORT_RULES } from "../../lib/contracts/effort.ts";
import { e2ePorts } from "../../playwright.config.ts";
import { createUser, openNewProfileForm, signedInContext, trpcCall, type E2eUser } from "./helpers.ts";

// The effort dial on Anthropic's Messages API, from the browser: an admin creates an `anthropic`
// profile through the profile form — pointed at the scripted model server's /v1/messages like any
// Messages endpoint, with an effort policy and a cheaper model for low effort — an operator launches
// the license-audit demo with it, and the run page shows each model step's level, model, the rule
// that chose it and its cache figures, checked against what the API stored for that step.

const OPERATOR: E2eUser = { email: "effort-operator@e2e.test", name: "effort-operator", password: "effort-operator-pw-1", roles: ["operator"] };
/** Below scripted-sloppy's first misread package (every 7th), so the low-effort model audits correctly. */
const LIMIT = 6;
/** The model of low-effort turns: the competent agent that misreads every 7th license. */
const LOW_MODEL = "scripted-sloppy";

/** A model step as task.step returns it (the fields this spec reads). */
interface StepDetail {
  stepId: string;
  runId: string;
  kind: string;
  index: number;
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number | null;
  completionTokens: number;
  effortLevel: string | null;
  effortModel: string | null;
  effortRule: string | null;
}

test("an admin creates an Anthropic profile with an effort policy; an operator's run shows each step's effort and cache", async ({
  page,
  browser,
  baseURL,
}) => {
  const name = `e2e-claude-${Date.now().toString(36)}`;

  // The admin, in the profile form: the Messages API at the scripted server, no key (the key rule
  // sends none to a base URL Longhaul's own configuration does not name), and the dial.
  const { section, form } = await openNewProfileForm(page, { name, model: "scripted" });
  await form.getByRole("combobox", { name: "Provider", exact: true }).selectOption("anthropic");
  await form.getByLabel(/^Base URL \(Anthropic Messages API/).fill(`http://127.0.0.1:${e2ePorts.modelPort}`);
  for (const tool of ["write_artifact", "send_email", "complete_phase"]) await form.getByRole("checkbox", { name: tool, exact: true }).check();
  // The demo agent reads five package.json files a turn before recording them: not a stall.
  await form.getByLabel(/^Stall detector/).fill("10");
  await form.getByLabel(/^Input price/).fill("3");
  await form.getByLabel("Cached input price, USD / M tokens").fill("0.3");
  await form.getByLabel(/^Cache write price/).fill("3.75");
  await form.getByLabel("Output price, USD / M tokens").fill("15");

  const effort = form.getByRole("group", { name: "Effort" });
  await expect(effort.getByTestId("effort-support")).toContainText("output_config.effort");
  await effort.getByLabel(/^Decide the effort per step/).check();
  await effort.getByRole("combobox", { name: "Default level (no rule applies)" }).selectOption("medium");
  await effort.getByRole("combobox", { name: /^first turn \(planning\)/ }).selectOption("high");
  await effort.getByRole("combobox", { name: /^mechanical \(after read-only results\)/ }).selectOption("low");
  await effort.getByRole("combobox", { name: /^proposes a side effect/ }).selectOption("high");
  // A model name over the limit is refused under its own field, and nothing is stored.
  const lowModel = effort.getByLabel(/^Model at low/);
  await lowModel.fill("m".repeat(201));
  await form.getByRole("button", { name: "Create profile" }).click();
  await expect(effort.getByTestId("effort-model-low").getByRole("alert")).toHaveText("effort.models.low: at most 200 characters");
  await expect(lowModel).toHaveAttribute("aria-invalid", "true");
  const missing = await page.request.get(`/api/trpc/profile.get?input=${encodeURIComponent(JSON.stringify({ json: { name } }))}`);
  expect(missing.status()).toBe(404);
  await lowModel.fill(LOW_MODEL);

  await form.getByRole("button", { name: "Test connection" }).click();
  await expect(form.getByTestId("connection-result")).toContainText(`Connected: scripted at http://127.0.0.1:${e2ePorts.modelPort}`);
  await form.getByRole("button", { name: "Create profile" }).click();
  await expect(form).toBeHidden();
  await expect(section.locator(`[data-profile-row="${name}"]`)).toContainText("Anthropic Messages API");

  // What the form stored: the provider, the base URL and the policy as entered.
  const stored = await trpcCall<{ spec: Record<string, unknown> }>(page.request, "profile.get", { name });
  expect(stored.spec).toMatchObject({ provider: "anthropic", baseUrl: `http://127.0.0.1:${e2ePorts.modelPort}`, model: "scripted", apiKeyEnv: null });
  expect(stored.spec.effort).toEqual({ default: "medium", rules: { ...RECOMMENDED_EFFORT_RULES }, models: { low: LOW_MODEL } });

  // The operator (another user, operator role only) launches the demo with it from the launch form.
  await createUser(page.request, OPERATOR);
  const context = await signedInContext(browser, baseURL!, OPERATOR);
  const op = await context.newPage();
  await op.goto("/tasks/new");
  await op.getByLabel("Package limit").fill(String(LIMIT));
  await op.getByLabel("Agent profile").selectOption(name);
  await op.getByRole("button", { name: "Launch" }).click();
  await expect(op).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  const taskUrl = op.url();
  const taskId = taskUrl.slice(taskUrl.lastIndexOf("/") + 1);
  await expect(op.getByTestId("task-profile-version")).toHaveText(`profile ${name} v1`);
  await expect(op.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 150_000 });
  await expect(op.getByTestId("result-summary")).toContainText(`Audited ${LIMIT} packages`);

  // What was stored for each model step (the API, as the operator reads it).
  const { runIds, rowsJson } = await trpcCall<{ runIds: string[]; rowsJson: string }>(op.request, "task.steps", { taskId });
  const rows = JSON.parse(rowsJson) as [number, string, number, string][];
  const modelRows = rows.filter((r) => r[3] === "model").map((r) => ({ runId: runIds[r[0]]!, stepId: r[1] }));
  const steps = await Promise.all(modelRows.map((r) => trpcCall<StepDetail>(op.request, "task.step", r)));
  steps.sort((a, b) => a.index - b.index);
  expect(steps.length).toBeGreaterThan(3);
  for (const s of steps) expect(s.effortLevel, `${s.stepId} has an effort`).not.toBeNull();

  // The dial decided: a high-effort first turn on the profile's model, a low-effort mechanical turn
  // on the low model; the Messages cache was written and then read by a later turn.
  const first = steps[0]!;
  expect([first.stepId, first.effortLevel, first.effortModel, first.effortRule]).toEqual(["model-0", "high", "scripted", "planning"]);
  const mechanical = steps.find((s) => s.effortRule === "mechanical");
  expect(mechanical, "a mechanical turn").toBeDefined();
  expect([mechanical!.effortLevel, mechanical!.effortModel]).toEqual(["low", LOW_MODEL]);
  const written = steps.find((s) => (s.cacheWriteTokens ?? 0) > 0);
  expect(written, "a step that wrote to the cache").toBeDefined();
  const read = steps.find((s) => s.index > written!.index && s.cachedTokens > 0);
  expect(read, "a later step read from the cache").toBeDefined();

  // The scripted server was reached through /v1/messages, and the low model was really called.
  const stats = (await (await op.request.get(`http://127.0.0.1:${e2ePorts.modelPort}/control/stats`)).json()) as {
    byModel: Record<string, number>;
    byRoute: Record<string, number>;
  };
  expect(stats.byModel[LOW_MODEL] ?? 0).toBeGreaterThan(0);
  expect(stats.byRoute.messages ?? 0).toBeGreaterThan(0);

  // The run page shows each of them as stored: the timeline row's badge (level · model, the rule
  // for screen readers) and the step's detail (effort, model, rule; cached and cache-write tokens).
  for (const s of new Set([first, mechanical!, written!, read!])) await expectStepShown(op, taskUrl, s);

  // Every model step's badge the timeline renders matches its stored effort. The list renders the
  // rows in view once the browser has taken it over (before that, the page's HTML holds its newest
  // rows): a viewport tall enough for the whole run, and the count read once the list is interactive.
  await op.setViewportSize({ width: 1440, height: 4_000 });
  await op.goto(taskUrl);
  await expect(op.getByTestId("timeline")).toHaveAttribute("data-interactive");
  const badges = op.getByRole("list", { name: "Steps" }).getByTestId("effort-badge");
  await expect.poll(() => badges.count()).toBeGreaterThan(3);
  const shown = await badges.evaluateAll((els) =>
    els.map((el) => ({ stepId: el.closest("[data-step-id]")?.getAttribute("data-step-id"), text: el.textContent, rule: el.getAttribute("data-effort-rule") })),
  );
  expect(shown.length).toBeGreaterThan(3);
  for (const b of shown) {
    const s = steps.find((x) => x.stepId === b.stepId)!;
    expect(b, `badge of ${b.stepId}`).toEqual({ stepId: s.stepId, text: `${s.effortLevel} · ${s.effortModel}`, rule: s.effortRule });
  }
  await context.close();
});

/** Opens step `s` on the run page (`?step=`) and checks its timeline badge and its detail against the stored values. */
async function expectStepShown(page: Page, taskUrl: string, s: StepDetail): Promise<void> {
  await page.goto(`${taskUrl}?step=${encodeURIComponent(`${s.runId}:${s.stepId}`)}`);
  const row = page.getByRole("list", { name: "Steps" }).locator(`[data-step-id="${s.stepId}"][data-run-id="${s.runId}"]`);
  const why = effortRuleLabel(s.effortRule!);
  await expect(row.getByTestId("effort-badge")).toHaveText(`${s.effortLevel} · ${s.effortModel}`);
  await expect(row.getByTestId("effort-badge")).toHaveAttribute("aria-label", `effort ${s.effortLevel}, model ${s.effortModel}, because: ${why}`);
  await expect(page.getByTestId("step-effort")).toHaveText(`Effort: ${s.effortLevel} on ${s.effortModel} — ${why}`);
  const write = s.cacheWriteTokens ? `, ${compactNumber(s.cacheWriteTokens)} written to cache` : "";
  await expect(page.getByTestId("step-usage")).toContainText(`Tokens: ${compactNumber(s.promptTokens)} in (${compactNumber(s.cachedTokens)} cached${write})`);
}

import { join } from "node:path";
import { expect, request as playwrightRequest, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page } from "@playwright/test";

// Shared steps of the Playwright specs (tests/e2e/*.spec.ts); not a spec itself.

/**
 * The first user of the e2e data folder (tests/e2e/global-setup.ts signs it up: admin, every role).
 * Named "operator" so a spec that reads "resume by operator" reads the default user's actions.
 */
export const E2E_ADMIN = { email: "operator@e2e.test", password: "e2e-admin-password-1", name: "operator" };

/** Where global setup saves the admin's session (the default storageState of every spec). */
export function e2eAdminStatePath(): string {
  const dir = process.env.LONGHAUL_E2E_DATA;
  if (!dir) throw new Error("LONGHAUL_E2E_DATA is not set (playwright.config.ts sets it)");
  return join(dir, "e2e-admin-state.json");
}

/** A user for a per-role spec. */
export interface E2eUser {
  email: string;
  name: string;
  password: string;
  roles: ("operator" | "handler" | "manager" | "admin")[];
}

/** Creates `user` through the admin API (`admin.createUser`) with `admin`'s request context (the default: signed in as {@link E2E_ADMIN}). A user that exists already is left as it is. */
export async function createUser(admin: APIRequestContext, user: E2eUser): Promise<void> {
  const res = await admin.post("/api/trpc/admin.createUser", { data: { json: user } });
  if (res.status() === 409) return;
  expect(res.status(), await res.text()).toBe(200);
}

/** An API request context signed in as `user` (email + password at /api/auth/sign-in/email), no other state. */
export async function signedInRequest(baseURL: string, user: Pick<E2eUser, "email" | "password">): Promise<APIRequestContext> {
  const ctx = await playwrightRequest.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const res = await ctx.post("/api/auth/sign-in/email", { data: { email: user.email, password: user.password } });
  expect(res.status(), await res.text()).toBe(200);
  return ctx;
}

/** A browser context signed in as `user` (its own cookies, not the admin's). Close it at the end. */
export async function signedInContext(browser: Browser, baseURL: string, user: Pick<E2eUser, "email" | "password">): Promise<BrowserContext> {
  const api = await signedInRequest(baseURL, user);
  const context = await browser.newContext({ baseURL, storageState: await api.storageState() });
  await api.dispose();
  return context;
}

/**
 * Opens /admin → Agent profiles → "New profile" as the page's user (an admin) and fills Name and
 * Model. Returns the Profiles section and the profile form, for the spec to fill the rest.
 */
export async function openNewProfileForm(page: Page, { name, model }: { name: string; model: string }): Promise<{ section: Locator; form: Locator }> {
  await page.goto("/admin?section=profiles");
  const section = page.getByRole("region", { name: "Profiles" });
  await section.getByRole("button", { name: "New profile" }).click();
  const form = page.getByRole("form", { name: "Profile" });
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("Model", { exact: true }).fill(model);
  return { section, form };
}

/** A goal the scripted-loop profile loops on (the same list_files call) until the loop detector escalates; resumed with guidance it reads the README and finishes. */
export const README_GOAL = "Find out what this project is from the README in the workspace, record it as a fact, then finish.";

/**
 * Launches a goal of one's own from the form: opens /tasks/new, checks "A goal of my own", fills
 * Goal, picks agent profile `profile`, fills Step budget when `stepBudget` is given, clicks Launch
 * and waits for the task page (`/tasks/task_…`). Returns that page's URL.
 */
export async function launchGoalFromForm(page: Page, { goal, profile, stepBudget }: { goal: string; profile: string; stepBudget?: number }): Promise<string> {
  await page.goto("/tasks/new");
  await page.getByLabel("A goal of my own").check();
  await page.getByLabel("Goal", { exact: true }).fill(goal);
  await page.getByLabel("Agent profile").selectOption(profile);
  if (stepBudget !== undefined) await page.getByLabel("Step budget").fill(String(stepBudget));
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  return page.url();
}

/**
 * Launches {@link README_GOAL} on the scripted-loop profile from the form and waits (up to 60 s) for
 * the task page's escalation banner to name the loop (its 3rd identical call). Returns the task page's URL.
 */
export async function launchLoopUntilEscalated(page: Page): Promise<string> {
  const taskUrl = await launchGoalFromForm(page, { goal: README_GOAL, profile: "scripted-loop" });
  await expect(page.getByTestId("escalation-banner")).toContainText("loop", { timeout: 60_000 });
  return taskUrl;
}

/**
 * One tRPC call over HTTP as the request context's user (superjson envelope `{json: input}`): a query
 * (GET) or, with `mutation`, a mutation (POST). Fails the test on a non-2xx answer, showing its body.
 * Returns the procedure's result.
 */
export async function trpcCall<T>(request: APIRequestContext, path: string, input: unknown, mutation = false): Promise<T> {
  const res = mutation
    ? await request.post(`/api/trpc/${path}`, { data: { json: input } })
    : await request.get(`/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`);
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: T } } }).result.data.json;
}

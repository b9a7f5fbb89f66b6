import { expect, test, type Page } from "@playwright/test";

// No console errors on a normal visit. Each page a team visits on a normal day,
// signed in (the admin, every role) and signed out: any console error or uncaught page error fails
// the spec — Content-Security-Policy violations included (Chromium reports them as console errors,
// and the page's own `securitypolicyviolation` event is reported here too, in case one is not logged).

/** Collects console errors, page errors and CSP violations on `page`, each labelled with the path visited. */
function collectErrors(page: Page): { errors: string[]; at: { path: string } } {
  const at = { path: "" };
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`${at.path}: console error: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => errors.push(`${at.path}: page error: ${e.message}`));
  void page.exposeFunction("__reportCsp", (v: string) => errors.push(`${at.path}: CSP violation: ${v}`));
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __reportCsp: (v: string) => void }).__reportCsp(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`);
    });
  });
  return { errors, at };
}

test("a normal visit, signed in and signed out, logs no console error, page error or CSP violation", async ({ page, request, browser, baseURL }) => {
  const res = await request.post("/api/trpc/task.launch", { data: { json: { demo: { kind: "license-audit", limit: 3 }, profile: "scripted" } } });
  expect(res.ok()).toBe(true);
  const { taskId } = ((await res.json()) as { result: { data: { json: { taskId: string } } } }).result.data.json;

  const { errors, at } = collectErrors(page);
  const visit = async (path: string, ready: (p: Page) => Promise<void>) => {
    at.path = path;
    await page.goto(path);
    await ready(page);
    // `ready` waited for the page's own data; the load event too before the next page (its scripts all ran).
    await page.waitForLoadState("load");
  };
  await visit("/tasks", (p) => expect(p.getByRole("heading", { name: "Tasks" }).first()).toBeVisible());
  await visit(`/tasks/${taskId}`, async (p) => {
    await expect(p.getByRole("list", { name: "Steps" }).getByRole("listitem").first()).toBeVisible({ timeout: 60_000 });
    await expect(p.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
  });
  await visit("/tasks/new", (p) => expect(p.getByRole("heading", { name: "Launch a task" })).toBeVisible());
  await visit("/escalations", (p) => expect(p.getByRole("heading", { name: /Escalations/ }).first()).toBeVisible());
  await visit("/costs", (p) => expect(p.getByRole("heading", { name: /Costs/ }).first()).toBeVisible());
  await visit("/admin", (p) => expect(p.getByRole("heading", { name: /Admin/ }).first()).toBeVisible());
  await visit("/account", (p) => expect(p.getByRole("heading", { name: /Account/ }).first()).toBeVisible());
  expect(errors).toEqual([]);

  // Signed out: a fresh browser context with no session.
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] }, baseURL });
  const anon = await context.newPage();
  const out = collectErrors(anon);
  out.at.path = "/sign-in (signed out)";
  await anon.goto("/sign-in");
  await expect(anon.getByRole("button", { name: "Sign in" })).toBeVisible();
  await anon.waitForLoadState("load");
  out.at.path = "/tasks (signed out)";
  await anon.goto("/tasks");
  await expect(anon).toHaveURL(/\/sign-in/);
  await expect(anon.getByRole("button", { name: "Sign in" })).toBeVisible();
  await context.close();
  expect(out.errors).toEqual([]);
});

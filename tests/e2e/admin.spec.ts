import { expect, test, type Page } from "@playwright/test";
import { createUser, signedInContext, signedInRequest, type E2eUser } from "./helpers.ts";
import { PASSWORD_MAX_LENGTH } from "../../lib/contracts/limits.ts";

// The admin page in sections: section navigation in
// the URL and by keyboard, confirmations before adding a user and changing roles, one status line
// whose error clears when the next action succeeds, deactivating a user (their sign-in refused in
// the browser, their open session refused at once) and reactivating them; and a user changing
// their own password at /account.

const stamp = Date.now().toString(36);
const DORA: E2eUser = { email: `dora-${stamp}@e2e.test`, name: `dora-${stamp}`, password: "dora-password-1", roles: ["operator"] };

/** The admin page's section nav. */
const nav = (page: Page) => page.getByRole("navigation", { name: "Admin sections" });

test("sections: one at a time, in the URL, reachable by keyboard, kept on reload and Back", async ({ page }) => {
  await page.goto("/admin");
  await expect(page.getByRole("region", { name: "Users" })).toBeVisible();
  await expect(nav(page).getByRole("link", { name: "Users" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("region", { name: "Audit log" })).toHaveCount(0);

  await nav(page).getByRole("link", { name: "Audit log" }).click();
  await expect(page).toHaveURL(/\/admin\?section=audit$/);
  await expect(page.getByRole("region", { name: "Audit log" })).toBeVisible();
  await expect(page.getByRole("region", { name: "Users" })).toHaveCount(0);
  // The audit log starts near the top of the page, not below the profiles.
  const top = await page.getByTestId("audit-log").evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  expect(top).toBeLessThan(600);
  await page.reload();
  await expect(page.getByRole("region", { name: "Audit log" })).toBeVisible();

  // Keyboard: Tab from the Audit log link reaches the next ones; Enter opens a section.
  await nav(page).getByRole("link", { name: "MCP servers" }).focus();
  await page.keyboard.press("Shift+Tab");
  await expect(nav(page).getByRole("link", { name: "Agent profiles" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/section=profiles$/);
  await expect(page.getByRole("button", { name: "New profile" })).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/section=audit$/);
  await expect(page.getByRole("region", { name: "Audit log" })).toBeVisible();
});

test("add user and role changes are confirmed; an error clears when the next action succeeds", async ({ page }) => {
  const ann: E2eUser = { email: `ann-${stamp}@e2e.test`, name: `ann-${stamp}`, password: "ann-password-1", roles: [] };
  await page.goto("/admin?section=users");
  const form = page.getByRole("form", { name: "New user" });
  const fill = async () => {
    await form.getByLabel("Name").fill(ann.name);
    await form.getByLabel("Email").fill(ann.email);
    await form.getByLabel("Password").fill(ann.password);
    await form.getByLabel("handler").check();
  };
  await fill();
  await form.getByRole("button", { name: "Add user" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Add ${ann.name}?`);
  await expect(dialog).toContainText("the roles handler");
  // Cancel: nobody is added, what was typed stays.
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(form.getByLabel("Email")).toHaveValue(ann.email);
  await expect(page.locator(`[data-user-email="${ann.email}"]`)).toHaveCount(0);
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Add user" }).click();
  const row = page.locator(`[data-user-email="${ann.email}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByLabel(`handler for ${ann.email}`)).toBeChecked();
  await expect(page.getByTestId("users-done")).toContainText(`Added ${ann.name}`);

  // The same email again: refused, said once.
  await fill();
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByTestId("users-error")).toContainText("already has an account");

  // A role change: cancelled changes nothing; confirmed, it applies, and the error above is gone.
  await row.getByLabel(`manager for ${ann.email}`).click();
  await expect(dialog).toContainText(`Give ${ann.name} the manager role?`);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(row.getByLabel(`manager for ${ann.email}`)).not.toBeChecked();
  await expect(page.getByTestId("users-error")).toBeVisible();
  await row.getByLabel(`manager for ${ann.email}`).click();
  await dialog.getByRole("button", { name: "Give manager" }).click();
  await expect(row.getByLabel(`manager for ${ann.email}`)).toBeChecked();
  await expect(page.getByTestId("users-done")).toContainText(`${ann.name} now holds handler, manager`);
  await expect(page.getByTestId("users-error")).toHaveCount(0);
});

test("deactivate: the user's open session stops and their sign-in is refused in words; reactivate lets them back", async ({ page, browser, baseURL }) => {
  await createUser(page.request, DORA);
  const dora = await signedInRequest(baseURL!, DORA);
  expect((await dora.get("/api/trpc/account.me")).status()).toBe(200);

  await page.goto("/admin");
  const row = page.locator(`[data-user-email="${DORA.email}"]`);
  await row.getByRole("button", { name: "Deactivate" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Deactivate ${DORA.name}?`);
  await dialog.getByRole("button", { name: "Deactivate" }).click();
  await expect(row).toContainText("Deactivated");
  await expect(row.getByRole("button", { name: "Reactivate" })).toBeVisible();
  await expect(page.getByTestId("users-done")).toContainText(`${DORA.name} is deactivated`);

  // Her open session is refused at once.
  expect((await dora.get("/api/trpc/account.me")).status()).toBe(401);
  await dora.dispose();
  // Signing in from the sign-in page, with the right password, is refused in words.
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  const signIn = await context.newPage();
  await signIn.goto("/sign-in");
  await signIn.getByLabel("Email").fill(DORA.email);
  await signIn.getByLabel("Password").fill(DORA.password);
  await signIn.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(signIn.locator("form").getByRole("alert")).toHaveText("this account is deactivated: ask an admin to reactivate it");
  await expect(signIn).toHaveURL(/\/sign-in/);

  // An admin cannot deactivate themselves: refused in words.
  const self = page.locator('[data-user-email="operator@e2e.test"]');
  await self.getByRole("button", { name: "Deactivate" }).click();
  await dialog.getByRole("button", { name: "Deactivate" }).click();
  await expect(page.getByTestId("users-error")).toHaveText("You cannot deactivate your own account; ask another admin");

  await row.getByRole("button", { name: "Reactivate" }).click();
  await expect(row.getByRole("button", { name: "Deactivate" })).toBeVisible();
  await expect(page.getByTestId("users-error")).toHaveCount(0);
  await signIn.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(signIn).toHaveURL(/\/tasks/);
  await context.close();

  // The audit log names her, not her id.
  await nav(page).getByRole("link", { name: "Audit log" }).click();
  await page.getByLabel("Action").fill("admin.deactivate");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByTestId("audit-row").first().getByTestId("audit-target")).toContainText(DORA.email);
});

test("a user changes their own password at /account: the current one is required; the new one signs in", async ({ page, browser, baseURL }) => {
  const pat: E2eUser = { email: `pat-${stamp}@e2e.test`, name: `pat-${stamp}`, password: "pat-password-1", roles: ["operator"] };
  await createUser(page.request, pat);
  const context = await signedInContext(browser, baseURL!, pat);
  const mine = await context.newPage();
  await mine.goto("/account");
  const form = mine.getByRole("form", { name: "Change password" });
  // The same over-long password pasted into both fields: the error names the limit, not "does not match".
  const tooLong = "p".repeat(PASSWORD_MAX_LENGTH + 1);
  await form.getByLabel("Current password").fill(pat.password);
  await form.getByLabel("New password", { exact: true }).fill(tooLong);
  await form.getByLabel("Repeat new password").fill(tooLong);
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(form.getByRole("alert")).toContainText(`at most ${PASSWORD_MAX_LENGTH} characters`);
  await expect(form.getByRole("alert")).not.toContainText("does not match");
  await form.getByLabel("Current password").fill("not-my-password");
  await form.getByLabel("New password", { exact: true }).fill("pat-password-2");
  await form.getByLabel("Repeat new password").fill("pat-password-2");
  await form.getByRole("button", { name: "Change password" }).click();
  // Named by the field's label, not the API's path; editing that field takes it away.
  await expect(form.getByRole("alert")).toHaveText("Current password: incorrect (the password you sign in with now)");
  await form.getByLabel("Current password").fill(pat.password);
  await expect(form.getByRole("alert")).toHaveCount(0);
  await form.getByRole("button", { name: "Change password" }).click();
  await expect(mine.getByTestId("password-changed")).toContainText("Password changed");
  await expect(form.getByRole("alert")).toHaveCount(0);
  await context.close();
  const again = await signedInRequest(baseURL!, { email: pat.email, password: "pat-password-2" });
  await again.dispose();
  const old = await page.request.post("/api/auth/sign-in/email", { data: { email: pat.email, password: pat.password }, headers: { origin: baseURL! } });
  expect(old.status()).toBe(401);
});

test("a 100-character name without spaces wraps: at 1280 px every row's buttons show without sideways scrolling", async ({ page }) => {
  const long: E2eUser = {
    email: `${"l".repeat(60)}-${stamp}@e2e.test`,
    name: `long${"n".repeat(90)}${stamp}`.slice(0, 100),
    password: "long-password-1",
    roles: [],
  };
  await createUser(page.request, long);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/admin?section=users");
  const row = page.locator(`tr[data-user-email="${long.email}"]`);
  await expect(row).toBeVisible();
  const table = page.locator("table").filter({ has: row });
  const box = await table.evaluate((el) => ({ scrollWidth: el.parentElement!.scrollWidth, clientWidth: el.parentElement!.clientWidth }));
  expect(box.scrollWidth, "the users table scrolls sideways").toBeLessThanOrEqual(box.clientWidth);
  for (const control of [row.getByRole("checkbox").last(), row.getByRole("button", { name: "Deactivate" })]) {
    const b = (await control.boundingBox())!;
    expect(b.x + b.width).toBeLessThanOrEqual(1280);
  }
});

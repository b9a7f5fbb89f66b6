import { expect, test } from "@playwright/test";

// A team's profile as code, met in the browser: applied from a file (as `profiles apply` sends it),
// the admin page says where it comes from and offers no edit; detached in the app's own dialog it
// may be edited, and saved without a change it makes no version (its YAML block prompt kept to the
// byte). The launch form says what each offline profile plays, and that a goal of one's own on one
// ends as a dead end.

test("a profile applied from a file is managed as code; detached and saved unchanged it makes no version", async ({ page, request }) => {
  const name = `e2e-code-${Date.now().toString(36)}`;
  const text = `profiles:\n  - name: ${name}\n    model: scripted\n    provider: scripted\n    systemPrompt: |\n      Be careful.\n      Keep the final newline.\n`;
  const applied = await request.post("/api/trpc/profile.applyDocument", { data: { json: { text, source: "team/profiles.yaml" } } });
  expect(applied.ok(), await applied.text()).toBe(true);

  await page.goto("/admin?section=profiles");
  const row = page.getByRole("region", { name: "Profiles" }).locator(`[data-profile-row="${name}"]`);
  await expect(row).toContainText("v1");
  await expect(row.getByTestId("profile-managed-as-code")).toContainText("Managed as code: from the file team/profiles.yaml");
  await expect(row.getByRole("button", { name: "Edit" })).toBeDisabled();

  await row.getByRole("button", { name: "Detach from file…" }).click();
  const dialog = page.getByRole("dialog", { name: `Detach profile ${name} from the file team/profiles.yaml?` });
  await expect(dialog).toContainText("Applying the file again overwrites those edits");
  await dialog.getByRole("button", { name: "Detach" }).click();
  await expect(row.getByTestId("profile-managed-as-code")).toHaveCount(0);

  await row.getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: "Profile" });
  await form.getByRole("button", { name: "Save new version" }).click();
  await expect(form.getByTestId("profile-unchanged")).toHaveText("Nothing changed, so no new version was made.");
  await page.keyboard.press("Escape");
  await expect(row).toContainText("v1");
  const got = await request.get(`/api/trpc/profile.get?input=${encodeURIComponent(JSON.stringify({ json: { name } }))}`);
  const spec = ((await got.json()) as { result: { data: { json: { version: number; spec: { systemPrompt: string } } } } }).result.data.json;
  expect(spec).toMatchObject({ version: 1, spec: { systemPrompt: "Be careful.\nKeep the final newline.\n" } });
});

test("the launch form says what each offline profile plays, and that a goal of one's own on it ends as a dead end", async ({ page }) => {
  await page.goto("/tasks/new");
  const picker = page.getByLabel("Agent profile");
  await expect(picker.locator("option", { hasText: "scripted — Offline: the competent demo agent" })).toHaveCount(1);
  await expect(picker.locator("option", { hasText: "scripted-loop — Offline scenario: the loop agent" })).toHaveCount(1);
  await expect(picker.locator("option", { hasText: "offline scripted model" })).toHaveCount(0);
  await expect(page.getByTestId("profile-description")).toContainText("any other goal ends as a dead end");
  await expect(page.getByTestId("offline-goal-note")).toHaveCount(0);
  await page.getByLabel("A goal of my own").check();
  await expect(page.getByTestId("offline-goal-note")).toContainText("A goal of your own ends as a dead end saying it needs a real model provider");
});

import { expect, test } from "@playwright/test";
import { E2E_ADMIN } from "./helpers.ts";

// An action's line is about that action: a refusal says the field by its label on the form (not
// the API's path), goes when the field it names is edited or the next action succeeds, and a
// result never stands under a stale error. And an MCP server managed as code can be detached from
// its file in the app's own dialog, after which its row is editable.

test("admin users: a refusal names the field, goes when that field is edited, and the next action's result stands alone", async ({ page }) => {
  await page.goto("/admin?section=users");
  const form = page.getByRole("form", { name: "New user" });
  const dialog = page.getByRole("dialog");
  const id = Date.now().toString(36);
  await form.getByLabel("Name").fill(`Lin ${id}`);
  await form.getByLabel("Email").fill(E2E_ADMIN.email);
  await form.getByLabel("Password").fill("lin-password-1");
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Add user" }).click();
  const error = page.getByTestId("users-error");
  await expect(error).toHaveText(`Email: ${E2E_ADMIN.email} already has an account`);

  // Editing another field leaves the refusal (it is about the email); editing the email takes it away.
  await form.getByLabel("Name").fill(`Lin ${id} B`);
  await expect(error).toBeVisible();
  await form.getByLabel("Email").fill(`lin-${id}@e2e.test`);
  await expect(error).toHaveCount(0);

  // Refused again, then the next action (the corrected add) succeeds: its result, and no error, stands.
  await form.getByLabel("Email").fill(E2E_ADMIN.email);
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Add user" }).click();
  await expect(error).toBeVisible();
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(error).toBeVisible();
  await form.getByLabel("Email").fill(`lin-${id}@e2e.test`);
  await form.getByRole("button", { name: "Add user" }).click();
  await dialog.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByTestId("users-done")).toContainText(`Added Lin ${id} B`);
  await expect(error).toHaveCount(0);
});

test("MCP JSON: a refusal in the form's words goes when the JSON is edited and when the next action succeeds", async ({ page }) => {
  const name = `e2e-lines-${Date.now().toString(36)}`;
  const spec = (transport: Record<string, unknown>) => JSON.stringify({ name, transport }, null, 2);
  await page.goto("/admin?section=mcp");
  const servers = page.getByRole("region", { name: "MCP servers" });
  const json = servers.getByLabel("Register or update (JSON)");
  const save = servers.getByRole("button", { name: "Save server" });
  const form = servers.getByRole("form", { name: "Register an MCP server" });
  const error = form.getByRole("alert");
  const done = (text: string) => form.getByText(text, { exact: true });

  // No command: the page says which field by its name on the form, in plain words — not the API's path.
  await json.fill(spec({ type: "stdio" }));
  await save.click();
  await expect(error).toHaveText("Command (transport.command): required");
  // Editing the JSON takes the refusal away.
  await json.fill(spec({ type: "stdio", command: process.execPath, args: ["-e", "0"] }));
  await expect(error).toHaveCount(0);
  await save.click();
  await expect(done(`${name}: registered`)).toBeVisible();

  // Refused again (a success line does not stay under it), then the next action elsewhere on the
  // page — archiving the server — succeeds: the refusal no longer stands under its result.
  await json.fill(spec({ type: "smoke-signals" }));
  await save.click();
  await expect(error).toContainText("Transport type (transport.type: stdio or http)");
  await expect(done(`${name}: registered`)).toHaveCount(0);
  const row = servers.locator(`[data-mcp-server="${name}"]`);
  await row.getByRole("button", { name: "Archive" }).click();
  await expect(row).toContainText("archived");
  await expect(error).toHaveCount(0);
});

test("an MCP server managed as code is detached in the app's dialog, then edited in the browser", async ({ page, request }) => {
  const name = `e2e-detach-${Date.now().toString(36)}`;
  const text = `mcpServers:\n  - name: ${name}\n    description: From the team's file\n    transport:\n      type: stdio\n      command: node\n      args: [-e, "0"]\n`;
  const applied = await request.post("/api/trpc/profile.applyDocument", { data: { json: { text, source: "team/mcp.yaml" } } });
  expect(applied.ok(), await applied.text()).toBe(true);

  await page.goto("/admin?section=mcp");
  const servers = page.getByRole("region", { name: "MCP servers" });
  const row = servers.locator(`[data-mcp-server="${name}"]`);
  await expect(row.getByTestId("mcp-managed-as-code")).toContainText("Managed as code (the file team/mcp.yaml)");
  await expect(row.getByRole("button", { name: "Edit" })).toBeDisabled();

  // Cancel changes nothing.
  await row.getByRole("button", { name: "Detach from file…" }).click();
  const dialog = page.getByRole("dialog", { name: `Detach MCP server ${name} from the file team/mcp.yaml?` });
  await expect(dialog).toContainText("Applying the file again overwrites those edits");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId("mcp-managed-as-code")).toBeVisible();

  await row.getByRole("button", { name: "Detach from file…" }).click();
  await dialog.getByRole("button", { name: "Detach" }).click();
  await expect(row.getByTestId("mcp-managed-as-code")).toHaveCount(0);

  // Editable now: Edit puts its JSON in the form, and a changed description saves as a new version.
  await row.getByRole("button", { name: "Edit" }).click();
  const json = servers.getByLabel("Register or update (JSON)");
  await expect(json).toHaveValue(new RegExp(`"name": "${name}"`));
  const edited = (await json.inputValue()).replace("From the team's file", "Changed in the browser");
  await json.fill(edited);
  await servers.getByRole("button", { name: "Save server" }).click();
  await expect(servers.getByTestId("mcp-save-done")).toHaveText(`${name}: updated to v2`);
  await expect(row).toContainText("Changed in the browser");
});

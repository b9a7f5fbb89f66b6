import { expect, test } from "@playwright/test";

// The offline MCP demo in the browser: an operator picks "MCP audit" in the launch form; the task
// page shows the MCP steps live, each with its server's name (files: the filesystem server, memory:
// the memory server, both real servers from npm), and the run completes.

test("an operator launches the mcp-audit demo and sees the MCP steps with their servers", async ({ page }) => {
  await page.goto("/tasks/new");
  await page.getByRole("radio", { name: /^MCP audit/ }).check();
  await page.getByLabel("Package limit").fill("20");
  await page.getByRole("button", { name: "Launch" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_[0-9a-z]+$/);
  await expect(page.getByText("Completed", { exact: true }).first()).toBeVisible({ timeout: 120_000 });
  await expect(page.getByTestId("result-summary")).toContainText("finding(s) in the memory server");
  const steps = page.getByRole("list", { name: "Steps" });
  // The list follows the run's tail: the last steps stored the findings in the memory server.
  await expect(steps.getByTestId("mcp-server").filter({ hasText: "MCP · memory" }).first()).toBeVisible();
  await expect(steps.getByText(/MCP memory · create_entities\(finding /).first()).toBeVisible();
  // The reads, through the filesystem server: filter the timeline by that tool.
  await page.getByLabel("Tool", { exact: true }).selectOption("files__read_text_file");
  await expect(steps.getByTestId("mcp-server").filter({ hasText: "MCP · files" }).first()).toBeVisible();
  await expect(steps.getByText(/MCP files · read_text_file\(/).first()).toBeVisible();
});

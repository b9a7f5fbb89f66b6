import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { MCP_AUDIT_FILES_SERVER, mcpAuditGoal, mcpAuditStepBudget } from "../../lib/contracts/demo.ts";
import { createUser, launchGoalFromForm, signedInContext, type E2eUser } from "./helpers.ts";

// Your own tools, set up by an admin, end to end: in the browser an admin registers the
// real memory MCP server from npm (stdio) under a name of the team's, tests it, and creates a profile
// that picks it (and the seed's `files` server), overriding the class of one of its tools; an operator launches an MCP audit with that profile
// and sees the MCP steps with the server's name. Then the same set-up written as a YAML file and
// applied with `npm run cli -- profiles apply` (spawned against this e2e server) lists the same.

const OPERATOR: E2eUser = { email: "mcp-admin-operator@e2e.test", name: "mcp-admin-operator", password: "mcp-admin-operator-pw-1", roles: ["operator"] };
const MEMORY_BIN = resolve(import.meta.dirname, "../../node_modules/@modelcontextprotocol/server-memory/dist/index.js");
const LIMIT = 6;

function memorySpec(name: string) {
  return {
    name,
    description: "The team's knowledge graph (@modelcontextprotocol/server-memory)",
    transport: {
      type: "stdio",
      command: process.execPath,
      args: [MEMORY_BIN],
      env: { MEMORY_FILE_PATH: { value: join(process.env.LONGHAUL_E2E_DATA!, `${name}.jsonl`) } },
    },
  };
}

/** `npm run cli -- <args>` against the e2e server (its admin token in DATA_DIR/cli-token); the parsed last stdout line. */
function cli(args: string[]): Record<string, unknown> {
  const run = spawnSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "../../scripts/cli.ts"), ...args], {
    encoding: "utf8",
    env: { ...process.env, LONGHAUL_URL: `http://127.0.0.1:${process.env.E2E_PORT ?? 3100}`, DATA_DIR: process.env.LONGHAUL_E2E_DATA, LONGHAUL_TOKEN: "" },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

type ListedProfile = { name: string; provider: string; model: string; tools: string[]; mcpServers: { server: string; tools?: string[] }[]; stepBudget: number };

/** What a profile and its servers amount to, with the set-up's own names replaced by `<memory>`. */
function shape(p: ListedProfile, memory: string) {
  return {
    provider: p.provider,
    model: p.model,
    tools: [...p.tools].sort(),
    stepBudget: p.stepBudget,
    mcpServers: p.mcpServers.map((s) => ({ ...s, server: s.server === memory ? "<memory>" : s.server })),
  };
}

async function mcpServerTransport(request: APIRequestContext, name: string): Promise<unknown> {
  const res = await request.get(`/api/trpc/mcpServer.list?input=${encodeURIComponent(JSON.stringify({ json: { includeArchived: false } }))}`);
  expect(res.status(), await res.text()).toBe(200);
  const body = (await res.json()) as { result: { data: { json: { name: string; spec: { transport: unknown } }[] } } };
  return body.result.data.json.find((s) => s.name === name)?.spec.transport;
}

test("an admin registers an MCP server and a profile that picks it; an operator sees its steps; the CLI applies the same", async ({
  page,
  browser,
  baseURL,
}) => {
  const id = Date.now().toString(36);
  const memory = `team-memory-${id}`;
  const profile = `team-mcp-${id}`;

  // The admin registers the memory server (stdio) in the MCP servers section and tests it.
  await page.goto("/admin?section=mcp");
  const servers = page.getByRole("region", { name: "MCP servers" });
  await servers.getByLabel("Register or update (JSON)").fill(JSON.stringify(memorySpec(memory), null, 2));
  await servers.getByRole("button", { name: "Save server" }).click();
  await expect(servers.getByText(`${memory}: registered`)).toBeVisible();
  const row = servers.locator(`[data-mcp-server="${memory}"]`);
  await expect(row).toContainText("v1");
  await row.getByRole("button", { name: "Test" }).click();
  await expect(row.getByTestId("mcp-test-result")).toContainText(`${memory}__create_entities`, { timeout: 30_000 });

  // The admin overrides one tool's class (the annotations say "side effect, not idempotent"): a new
  // server version, for the tasks launched from now on.
  await row.getByText(/Tools and their classes/).click();
  const createTool = row.locator('[data-mcp-tool="create_entities"]');
  await expect(createTool.getByTestId("mcp-tool-class")).toHaveText("side effect");
  await createTool.getByLabel("create_entities idempotent").selectOption("yes");
  await createTool.getByRole("button", { name: "Save class" }).click();
  await expect(createTool).toContainText("saved: v2");
  await expect(createTool.getByTestId("mcp-tool-class")).toHaveText("side effect (idempotent)");
  await expect(createTool).toContainText("(overridden)");
  await expect(row).toContainText("v2");

  // …and a profile on the scripted MCP-audit agent that picks it and the seed's files server.
  await page.getByRole("navigation", { name: "Admin sections" }).getByRole("link", { name: "Agent profiles" }).click();
  const section = page.getByRole("region", { name: "Profiles" });
  await section.getByRole("button", { name: "New profile" }).click();
  const form = page.getByRole("form", { name: "Profile" });
  await form.getByLabel("Name", { exact: true }).fill(profile);
  await form.getByLabel("Model", { exact: true }).fill("scripted-mcp-audit");
  await form.locator('select[name="provider"]').selectOption("scripted");
  await form.getByLabel("Step budget", { exact: true }).fill(String(mcpAuditStepBudget(LIMIT)));
  const mcp = form.getByRole("group", { name: "MCP servers" });
  await mcp.getByLabel(MCP_AUDIT_FILES_SERVER, { exact: true }).check();
  await mcp.getByLabel(memory, { exact: true }).check();
  await form.getByRole("button", { name: "Create profile" }).click();
  await expect(form).toBeHidden();
  await expect(section.locator(`[data-profile-row="${profile}"]`)).toContainText("v1");

  // An operator launches an MCP audit that stores its findings in the team's server, with that profile.
  await createUser(page.request, OPERATOR);
  const context = await signedInContext(browser, baseURL!, OPERATOR);
  const operatorPage = await context.newPage();
  await launchGoalFromForm(operatorPage, { goal: mcpAuditGoal(LIMIT, { memory }), profile, stepBudget: mcpAuditStepBudget(LIMIT) });
  await expect(operatorPage.getByTestId("task-profile-version")).toHaveText(`profile ${profile} v1`);
  await expect(operatorPage.locator('[data-status="completed"]').first()).toBeVisible({ timeout: 120_000 });
  const steps = operatorPage.getByRole("list", { name: "Steps" });
  await expect(
    steps
      .getByTestId("mcp-server")
      .filter({ hasText: `MCP · ${memory}` })
      .first(),
  ).toBeVisible();
  await expect(steps.getByText(new RegExp(`MCP ${memory} · create_entities\\(finding `)).first()).toBeVisible();
  await context.close();

  // The same set-up as code: a YAML file applied with the CLI, then listed.
  const cliMemory = `${memory}-cli`;
  const cliProfile = `${profile}-cli`;
  const file = join(process.env.LONGHAUL_E2E_DATA!, `mcp-admin-${id}.yaml`);
  const spec = memorySpec(cliMemory);
  writeFileSync(
    file,
    [
      "mcpServers:",
      `  - name: ${cliMemory}`,
      `    description: ${JSON.stringify(spec.description)}`,
      "    transport:",
      "      type: stdio",
      `      command: ${JSON.stringify(spec.transport.command)}`,
      `      args: ${JSON.stringify(spec.transport.args)}`,
      `      env: ${JSON.stringify(spec.transport.env)}`,
      "profiles:",
      `  - name: ${cliProfile}`,
      "    provider: scripted",
      "    model: scripted-mcp-audit",
      `    stepBudget: ${mcpAuditStepBudget(LIMIT)}`,
      "    tools: [list_files, read_file, search_files, record_fact, finish, declare_dead_end]",
      `    mcpServers: [{ server: ${MCP_AUDIT_FILES_SERVER} }, { server: ${cliMemory} }]`,
      "",
    ].join("\n"),
  );
  const applied = cli(["profiles", "apply", file]) as { items: { kind: string; name: string; action: string }[] };
  expect(Object.fromEntries(applied.items.map((i) => [i.name, i.action]))).toEqual({ [cliMemory]: "create", [cliProfile]: "create" });
  // Idempotent: applied again, nothing changes.
  const again = cli(["profiles", "apply", file]) as { items: { action: string }[] };
  expect(again.items.every((i) => i.action !== "create" && i.action !== "update")).toBe(true);

  const listed = (cli(["profiles", "list"]) as { profiles: ListedProfile[] }).profiles;
  const fromBrowser = listed.find((p) => p.name === profile);
  const fromFile = listed.find((p) => p.name === cliProfile);
  expect(fromBrowser, `profiles list has ${profile}`).toBeDefined();
  expect(fromFile, `profiles list has ${cliProfile}`).toBeDefined();
  expect(shape(fromFile!, cliMemory)).toEqual(shape(fromBrowser!, memory));
  expect(await mcpServerTransport(page.request, cliMemory)).toEqual({
    ...((await mcpServerTransport(page.request, memory)) as object),
    env: spec.transport.env,
  });
  // The admin page lists the server applied from the file beside the one made in the browser.
  await page.goto("/admin?section=mcp");
  await expect(servers.locator(`[data-mcp-server="${cliMemory}"]`)).toContainText(`stdio: ${process.execPath} ${MEMORY_BIN}`);
});

import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { upsertMcpServer } from "../../server/db/mcp-server-repository.ts";
import { createProfile } from "../../server/db/profile-repository.ts";
import { smokeGoal } from "../../server/domain/profile-smoke.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testPrincipal } from "../support/principals.ts";

// The profile smoke test on the real stack (executor, app, scripted model server, PostgreSQL) against
// the real MCP servers from npm (@modelcontextprotocol/server-filesystem and -memory): a profile whose
// own model is a real provider (an OpenAI endpoint nobody answers) is smoke-tested on the offline
// smoke model, each tool called once through the gateway, ledger and timeline.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const suffix = randomUUID().slice(0, 6);
const bin = (pkg: string) => path.join(process.cwd(), "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
const fs = `sfs-${suffix}`;
const mem = `smem-${suffix}`;
const profile = `smoke-${suffix}`;
let root = "";
let memoryFile = "";

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "longhaul-smoke-"));
  memoryFile = path.join(root, "memory.jsonl");
  writeFileSync(path.join(root, "notes.md"), "# Notes\n");
  const db = stack.db;
  await upsertMcpServer({
    prisma: db,
    spec: { name: fs, transport: { type: "stdio", command: process.execPath, args: [bin("server-filesystem"), root] } },
    actor: "test",
  });
  await upsertMcpServer({
    prisma: db,
    spec: {
      name: mem,
      transport: { type: "stdio", command: process.execPath, args: [bin("server-memory")], env: { MEMORY_FILE_PATH: { value: memoryFile } } },
    },
    actor: "test",
  });
  await createProfile({
    prisma: db,
    spec: {
      name: profile,
      provider: "openai",
      model: "gpt-4.1-mini",
      // A real provider's endpoint that nothing answers: a smoke test must never call it.
      baseUrl: "http://127.0.0.1:9/v1",
      tools: ["list_files", "read_file", "record_fact", "finish"],
      mcpServers: [{ server: fs }, { server: mem }],
    },
  });
}, 60_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The tool steps of a task, in order. */
async function toolSteps(taskId: string) {
  return stack.db.step.findMany({ where: { run: { taskId }, kind: "tool" }, orderBy: { index: "asc" } });
}

describe("profile smoke test", () => {
  it("read-only by default: each read-only tool called once on the smoke model, side effects skipped, the profile's model never called", async () => {
    const { taskId } = await stack.launch({ input: { goal: smokeGoal(profile, false), profile }, actor: "smoke-test", smoke: { includeSideEffects: false } });
    const status = await stack.waitForTaskStatus(taskId, undefined, 180_000);
    const steps = await toolSteps(taskId);
    expect(status, JSON.stringify(steps.map((s) => [s.tool, s.status, s.error]))).toBe("completed");
    const api = createCaller({ prisma: stack.db, actor: "smoke-viewer", principal: testPrincipal("smoke-viewer", ["manager"]) });
    const task = await api.task.get({ taskId });
    expect(task.profile).toMatchObject({ model: "scripted-smoke", provider: "scripted" });
    expect(task.smoke).toMatchObject({ model: "scripted-smoke", profileModel: "gpt-4.1-mini", includeSideEffects: false });
    const rows = task.smoke!.tools;
    const byName = new Map(rows.map((r) => [r.name, r]));
    // Read-only filesystem tools: each called once, with a latency; side effects: skipped, with why.
    for (const t of ["list_allowed_directories", "read_text_file", "list_directory", "directory_tree", "get_file_info", "search_files"]) {
      const row = byName.get(`${fs}__${t}`)!;
      expect(row.class.readOnly).toBe(true);
      expect(["called", "error"]).toContain(row.outcome);
      expect(row.latencyMs).toBeGreaterThanOrEqual(0);
    }
    expect(byName.get(`${fs}__list_allowed_directories`)).toMatchObject({ outcome: "called", detail: null });
    expect(byName.get(`${fs}__write_file`)).toMatchObject({ outcome: "skipped", class: { readOnly: false }, detail: expect.stringMatching(/side effect/) });
    expect(byName.get(`${mem}__create_entities`)).toMatchObject({ outcome: "skipped" });
    expect(byName.get(`${mem}__read_graph`)).toMatchObject({ outcome: "called" });
    // Exactly one call of each tested tool; none of a skipped one; no ledger rows; nothing written.
    const tested = rows.filter((r) => r.outcome !== "skipped").map((r) => r.name);
    expect(rows.every((r) => r.outcome !== "not_called")).toBe(true);
    const mcpSteps = steps.filter((s) => s.tool?.includes("__"));
    expect(mcpSteps.map((s) => s.tool).sort()).toEqual([...tested].sort());
    expect(await stack.db.sideEffect.count({ where: { taskId } })).toBe(0);
    expect(existsSync(memoryFile)).toBe(false);
    // Every model call went to the smoke model (the profile's endpoint was never asked: it would have failed the run).
    const calls = await stack.db.modelCall.findMany({ where: { run: { taskId } }, select: { model: true, status: true } });
    expect(calls.length).toBeGreaterThan(tested.length);
    expect(new Set(calls.map((c) => c.model))).toEqual(new Set(["scripted-smoke"]));
    expect((task.result as { summary?: string } | null)?.summary ?? JSON.stringify(task.result)).toMatch(/Smoke test: called each of \d+ tools once/);
  }, 240_000);

  it("with side effects: the memory server's writes go through the ledger, once each", async () => {
    const { taskId } = await stack.launch({ input: { goal: smokeGoal(profile, true), profile }, actor: "smoke-test", smoke: { includeSideEffects: true } });
    const status = await stack.waitForTaskStatus(taskId, undefined, 240_000);
    const steps = await toolSteps(taskId);
    expect(status, JSON.stringify(steps.map((s) => [s.tool, s.status, s.error]))).toBe("completed");
    const api = createCaller({ prisma: stack.db, actor: "smoke-viewer", principal: testPrincipal("smoke-viewer", ["manager"]) });
    const rows = (await api.task.get({ taskId })).smoke!.tools;
    expect(rows.filter((r) => r.outcome === "skipped")).toEqual([]);
    const create = rows.find((r) => r.name === `${mem}__create_entities`)!;
    expect(create).toMatchObject({ outcome: "called", class: { readOnly: false } });
    const effects = await stack.db.sideEffect.findMany({ where: { taskId } });
    const sideEffecting = rows.filter((r) => !r.class.readOnly && r.outcome !== "refused").map((r) => r.name);
    expect(effects.map((e) => e.tool).sort()).toEqual([...sideEffecting].sort());
    // The writes reached the server: create_entities made the schema example's entity, and
    // delete_entities — called after it, with the same sampled name — removed it again.
    const order = steps.map((st) => st.tool);
    expect(order.indexOf(`${mem}__create_entities`)).toBeLessThan(order.indexOf(`${mem}__delete_entities`));
    expect(existsSync(memoryFile)).toBe(true);
    expect(
      readFileSync(memoryFile, "utf8")
        .split("\n")
        .filter((l) => l.includes('"type":"entity"')),
    ).toEqual([]);
  }, 300_000);

  it("a profile without MCP tools is refused in words; nothing is created", async () => {
    const before = await stack.db.task.count();
    await expect(
      stack.launch({ input: { goal: smokeGoal("scripted", false), profile: "scripted" }, actor: "smoke-test", smoke: { includeSideEffects: false } }),
    ).rejects.toThrow(/profile "scripted" selects no MCP tools: there is nothing to smoke-test/);
    expect(await stack.db.task.count()).toBe(before);
  });
});

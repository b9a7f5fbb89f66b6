import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { MCP_AUDIT_FILES_SERVER, MCP_AUDIT_MEMORY_SERVER } from "../../lib/contracts/demo.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { useAgentStack } from "../support/fixtures.ts";

// The offline MCP demo on the real stack (executor, app, scripted model, PostgreSQL) and the real
// reference servers from npm: the seeded `mcp-audit` profile reads the notes through
// server-filesystem and stores one entity per finding in server-memory — each create a ledgered
// side effect, every MCP call its own durable step named with the server.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

let memoryFile = "";
beforeAll(async () => {
  const memory = await stack.db.mcpServer.findUniqueOrThrow({ where: { name: MCP_AUDIT_MEMORY_SERVER } });
  memoryFile = (memory.spec as { transport: { env: { MEMORY_FILE_PATH: { value: string } } } }).transport.env.MEMORY_FILE_PATH.value;
});

describe("mcp-audit demo", () => {
  it("reads through the filesystem server, stores each finding once in the memory server, completes", async () => {
    const { taskId } = await stack.launch({ input: { demo: { kind: "mcp-audit", limit: 20 } }, actor: "mcp-demo-test" });
    const status = await stack.waitForTaskStatus(taskId, undefined, 120_000);
    const steps = await stack.db.step.findMany({ where: { run: { taskId }, kind: "tool" }, orderBy: { index: "asc" } });
    expect(status, JSON.stringify(steps.map((s) => [s.tool, s.status, s.error]))).toBe("completed");
    const task = await stack.db.task.findUniqueOrThrow({ where: { id: taskId }, include: { profile: true } });
    expect(task.profile.name).toBe("mcp-audit");
    expect((task.mcpTools as { servers: { name: string }[] }).servers.map((s) => s.name)).toEqual([MCP_AUDIT_FILES_SERVER, MCP_AUDIT_MEMORY_SERVER]);
    const reads = steps.filter((s) => s.tool === `${MCP_AUDIT_FILES_SERVER}__read_text_file`);
    expect(reads).toHaveLength(20);
    const creates = steps.filter((s) => s.tool === `${MCP_AUDIT_MEMORY_SERVER}__create_entities`);
    const findings = (await stack.db.fact.findFirstOrThrow({ where: { taskId, key: "mcp-audit:findings" } })).value as { file: string; line: number }[];
    expect(findings.length).toBeGreaterThan(5);
    expect(creates).toHaveLength(findings.length);
    // One ledger row per finding, committed.
    const effects = await stack.db.sideEffect.findMany({ where: { taskId } });
    expect(effects).toHaveLength(findings.length);
    expect(effects.every((e) => e.status === "committed")).toBe(true);
    // The memory server holds each finding once (whatever earlier runs stored).
    const lines = readFileSync(memoryFile, "utf8").split("\n");
    for (const f of findings) expect(lines.filter((l) => l.includes(`"finding ${f.file}:${f.line}"`))).toHaveLength(1);
    expect(path.isAbsolute(memoryFile)).toBe(true);
  }, 180_000);
});

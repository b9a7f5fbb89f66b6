import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { discoverMcpToolSnapshot } from "../../server/tools/mcp/discover-tools.ts";
import { stopAllMcpServers } from "../../server/tools/mcp/runtime.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The mcpServer router as an admin uses it (in-process caller, real database, real memory server
// from npm): register, list with health, Test (start + tools/list with classes), a server that will
// not start, archive; writes are audited; a non-admin is refused.

const prisma = createPrismaClient(testDatabaseUrl());
const suffix = randomUUID().slice(0, 6);
const admin = createCaller({ prisma, actor: "mcp-admin", principal: testPrincipal("mcp-admin", ["admin"]) });
/** A second admin, so each test's audit rows are its own. */
const overrider = createCaller({ prisma, actor: "mcp-overrider", principal: testPrincipal("mcp-overrider", ["admin"]) });
const operator = createCaller({ prisma, actor: "mcp-op", principal: testPrincipal("mcp-op", ["operator"]) });
const memoryBin = path.join(process.cwd(), "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");

afterAll(async () => {
  await stopAllMcpServers();
  await prisma.mcpServer.deleteMany({ where: { name: { endsWith: suffix } } });
  await prisma.$disconnect();
});

describe("mcpServer router", () => {
  it("registers, tests, lists with health, archives — audited; refuses a non-admin", async () => {
    const name = `adm-${suffix}`;
    const spec = {
      name,
      transport: { type: "stdio", command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: { value: path.join("/tmp", `${name}.jsonl`) } } },
      tools: { delete_entities: { disabled: true } },
    };
    expect(await admin.mcpServer.upsert({ spec })).toMatchObject({ name, version: 1, created: true });
    await expect(admin.mcpServer.upsert({ spec: { ...spec, transport: { type: "http", url: "ftp://x" } } })).rejects.toThrow(
      /transport\.url: must be an http\(s\) URL/,
    );
    const tested = await admin.mcpServer.test({ name });
    expect(tested.ok).toBe(true);
    if (!tested.ok) return;
    expect(tested.serverInfo?.name).toBe("memory-server");
    expect(tested.tools.find((t) => t.name === "create_entities")).toMatchObject({ qualifiedName: `${name}__create_entities`, class: { readOnly: false } });
    const listed = (await admin.mcpServer.list({ includeArchived: false })).find((s) => s.name === name)!;
    expect(listed.health.lastPid).toBe(tested.pid);
    expect(await admin.mcpServer.archive({ name })).toMatchObject({ changed: true });
    expect((await admin.mcpServer.list({ includeArchived: false })).map((s) => s.name)).not.toContain(name);
    const audit = await prisma.auditEvent.findMany({ where: { actor: "mcp-admin", action: { startsWith: "mcpServer." } } });
    expect(audit.map((a) => a.action).sort()).toEqual(["mcpServer.archive", "mcpServer.test", "mcpServer.upsert"]);
    await expect(operator.mcpServer.list({ includeArchived: false })).rejects.toThrow(/admin/);
  });

  it("a server killed from outside: the list shows no dead pid, the exit's signal and time; the next start counts a restart", async () => {
    const name = `kill-${suffix}`;
    const spec = {
      name,
      transport: { type: "stdio", command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: { value: path.join("/tmp", `${name}.jsonl`) } } },
    };
    await admin.mcpServer.upsert({ spec });
    const tested = await admin.mcpServer.test({ name });
    if (!tested.ok) throw new Error(tested.error);
    const row = async () => (await admin.mcpServer.list({ includeArchived: false })).find((s) => s.name === name)!;
    expect((await row()).health).toMatchObject({ lastPid: tested.pid, restarts: 0, lastExitAt: null });
    process.kill(tested.pid!, "SIGKILL");
    // Recorded when the process exits (no call needed): poll the list until it says so.
    let health = (await row()).health;
    for (const deadline = Date.now() + 20_000; health.lastExitAt === null && Date.now() < deadline; health = (await row()).health) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(health).toMatchObject({ lastPid: null, lastExitSignal: "SIGKILL", lastExitCode: null, restarts: 0 });
    expect(health.lastError).toMatch(/exited unexpectedly \(signal SIGKILL\)/);
    const again = await admin.mcpServer.test({ name });
    if (!again.ok) throw new Error(again.error);
    expect((await row()).health).toMatchObject({ lastPid: again.pid, restarts: 1, lastExitSignal: "SIGKILL", lastError: null });
  });

  it("Test of a server that will not start answers its stderr in words", async () => {
    const name = `nost-${suffix}`;
    await admin.mcpServer.upsert({
      spec: { name, transport: { type: "stdio", command: process.execPath, args: ["-e", "console.error('no license key'); process.exit(2)"] } },
    });
    const tested = await admin.mcpServer.test({ name });
    expect(tested).toMatchObject({ ok: false, error: expect.stringMatching(/could not start.*no license key/s) });
  });

  it("an admin overrides one tool's class: audited, a new server version, new snapshots carry it, earlier ones keep theirs", async () => {
    const name = `ovr-${suffix}`;
    await overrider.mcpServer.upsert({
      spec: {
        name,
        transport: { type: "stdio", command: process.execPath, args: [memoryBin], env: { MEMORY_FILE_PATH: { value: path.join("/tmp", `${name}.jsonl`) } } },
      },
    });
    const before = (await discoverMcpToolSnapshot({ prisma, selections: [{ server: name }] }))!;
    const createdBefore = before.servers[0]!.tools.find((t) => t.tool === "create_entities")!;
    expect(createdBefore.class).toEqual({ readOnly: false, idempotent: false, destructive: false, openWorld: false });

    const set = await overrider.mcpServer.setToolOverride({ name, tool: "create_entities", override: { idempotent: true, openWorld: true } });
    expect(set).toMatchObject({ name, version: 2, changed: true, override: { idempotent: true, openWorld: true } });
    // The same override again changes nothing.
    expect(await overrider.mcpServer.setToolOverride({ name, tool: "create_entities", override: { idempotent: true, openWorld: true } })).toMatchObject({
      version: 2,
      changed: false,
    });
    await expect(overrider.mcpServer.setToolOverride({ name, tool: "create_entities", override: { readonly: true } as never })).rejects.toThrow(/readonly/);
    await expect(operator.mcpServer.setToolOverride({ name, tool: "create_entities", override: null })).rejects.toThrow(/admin/);

    const after = (await discoverMcpToolSnapshot({ prisma, selections: [{ server: name }] }))!;
    const createdAfter = after.servers[0]!.tools.find((t) => t.tool === "create_entities")!;
    expect(after.servers[0]!.version).toBe(2);
    expect(createdAfter.class).toEqual({ readOnly: false, idempotent: true, destructive: false, openWorld: true });
    expect(createdAfter.classSource).toMatchObject({ idempotent: "override", openWorld: "override", readOnly: "annotation" });
    // A snapshot taken before (a task launched before) is a value: it keeps the class it was taken with.
    expect(before.servers[0]!.tools.find((t) => t.tool === "create_entities")!.class.idempotent).toBe(false);
    // The admin page's list shows the effective class and the override.
    const listed = (await overrider.mcpServer.list({ includeArchived: false })).find((s) => s.name === name)!;
    expect(listed.tools.find((t) => t.name === "create_entities")).toMatchObject({
      override: { idempotent: true },
      class: { idempotent: true },
      classSource: { idempotent: "override" },
    });

    const audit = await prisma.auditEvent.findMany({ where: { actor: "mcp-overrider", action: "mcpServer.setToolOverride" } });
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(audit.map((a) => a.details))).toContain(name);

    // null removes it: back to the annotations, one more version.
    expect(await overrider.mcpServer.setToolOverride({ name, tool: "create_entities", override: null })).toMatchObject({
      version: 3,
      changed: true,
      override: null,
    });
    const reset = (await discoverMcpToolSnapshot({ prisma, selections: [{ server: name }] }))!;
    expect(reset.servers[0]!.tools.find((t) => t.tool === "create_entities")!.class.idempotent).toBe(false);
  }, 60_000);
});

import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient, type Prisma } from "../../server/db/client.ts";
import { upsertMcpServer } from "../../server/db/mcp-server-repository.ts";
import { beginStep } from "../../server/db/run-repository.ts";
import { AppError } from "../../server/errors.ts";
import { UnresolvedEffectError } from "../../server/tools/ledger.ts";
import { discoverMcpToolSnapshot } from "../../server/tools/mcp/discover-tools.ts";
import { checkMcpToolsChanged, MCP_RESULT_MAX_BYTES, MCP_TOOLS_CHANGED_ALERT, mcpToolDefinitions } from "../../server/tools/mcp/mcp-tools.ts";
import { liveMcpConnections, McpCallTimeoutError, stopAllMcpServers } from "../../server/tools/mcp/runtime.ts";
import type { McpToolSnapshot } from "../../server/domain/mcp-tool-snapshot.ts";
import { executeToolCall } from "../../server/tools/registry.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// MCP tools through Longhaul's tool gateway against the REAL reference servers installed from npm
// (@modelcontextprotocol/server-filesystem, -memory, -everything), spoken to by the official SDK
// client: no mock of the protocol anywhere. Each test registers its own servers (unique names) and
// makes its own task; the database is the real test PostgreSQL.

const url = testDatabaseUrl();
const prisma = createPrismaClient(url);
const suffix = randomUUID().slice(0, 6);
const bin = (pkg: string) => path.join(process.cwd(), "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");
const child = path.join(import.meta.dirname, "mcp-crash-child.ts");
const tsx = path.join(process.cwd(), "node_modules", ".bin", "tsx");
// Assembled at run time: no credential-shaped literal in the repository.
const TOKEN = `ghp_${"wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"}`;

let root = "";
let profileId = "";
const names = { fs: `fs-${suffix}`, mem: `mem-${suffix}`, ev: `ev-${suffix}`, rec: `rec-${suffix}` };
// Our own server on the official SDK (tests/fixtures/mcp-recording-server.ts): it writes down every call's `_meta` and arguments.
const recordingServer = path.join(process.cwd(), "tests", "fixtures", "mcp-recording-server.ts");
const recordFile = () => path.join(root, "recorded.jsonl");

/** The calls the recording server saw, as it wrote them down. */
function recorded(): { tool: string; meta: Record<string, unknown> | null; args: Record<string, unknown> }[] {
  if (!existsSync(recordFile())) return [];
  return readFileSync(recordFile(), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { tool: string; meta: Record<string, unknown> | null; args: Record<string, unknown> });
}

async function register(name: string, args: string[], extra: Record<string, unknown> = {}) {
  await upsertMcpServer({ prisma, spec: { name, transport: { type: "stdio", command: process.execPath, args, ...extra } }, actor: "test" });
}

/** A task + run with the snapshot of `servers` (all their tools). */
async function taskWith(servers: string[]): Promise<{ taskId: string; runId: string; snapshot: McpToolSnapshot }> {
  const snapshot = (await discoverMcpToolSnapshot({ prisma, selections: servers.map((server) => ({ server })) }))!;
  const taskId = `t-${randomUUID()}`;
  const runId = `r-${randomUUID()}`;
  await prisma.task.create({
    data: { id: taskId, goal: "mcp test", profileId, stepBudget: 50, workspace: root, mcpTools: snapshot as unknown as Prisma.InputJsonValue },
  });
  await prisma.run.create({ data: { id: runId, taskId } });
  return { taskId, runId, snapshot };
}

async function call(t: { taskId: string; runId: string; snapshot: McpToolSnapshot }, stepId: string, name: string, args: unknown) {
  await beginStep({ prisma, runId: t.runId, stepId, index: 0, kind: "tool", tool: name, args });
  return executeToolCall({
    name,
    rawArguments: JSON.stringify(args),
    ctx: { prisma, taskId: t.taskId, runId: t.runId, stepId, workspace: root },
    extra: mcpToolDefinitions(t.snapshot),
  });
}

function runChild(args: string[], crashAt?: string) {
  const env = { ...process.env };
  delete env.LONGHAUL_CRASH_AT;
  if (crashAt) env.LONGHAUL_CRASH_AT = crashAt;
  return spawnSync(tsx, [child, url, ...args], { env, encoding: "utf8", timeout: 60_000 });
}

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "longhaul-mcp-"));
  writeFileSync(path.join(root, "notes.md"), "# Notes\nThe audit found two problems.\n");
  writeFileSync(path.join(root, "huge.txt"), `${"0123456789abcdef".repeat(16 * 1024)}\n`); // 256 KiB
  profileId = (await prisma.agentProfile.create({ data: { name: `mcp-${suffix}`, model: "scripted", tools: [] } })).id;
  await register(names.fs, [bin("server-filesystem"), root]);
  await register(names.rec, [recordingServer], { env: { MCP_RECORD_FILE: { value: recordFile() } } });
  await register(names.mem, [bin("server-memory")], { env: { MEMORY_FILE_PATH: { value: path.join(root, "memory.jsonl") } } });
  await upsertMcpServer({
    prisma,
    spec: {
      name: names.ev,
      transport: { type: "stdio", command: process.execPath, args: [bin("server-everything"), "stdio"] },
      // An admin's override: treat the long-running operation as a side effect that is not idempotent.
      tools: { "trigger-long-running-operation": { readOnly: false, idempotent: false } },
    },
    actor: "test",
  });
}, 60_000);

afterAll(async () => {
  await stopAllMcpServers();
  await prisma.mcpServer.deleteMany({ where: { name: { endsWith: suffix } } });
  await prisma.$disconnect();
  rmSync(root, { recursive: true, force: true });
});

describe("MCP tools against real servers from npm", () => {
  it("discovers tools with schemas, annotations, server name and version; records health", async () => {
    const { snapshot } = await taskWith([names.fs, names.mem]);
    const [fs, mem] = snapshot.servers;
    expect(fs).toMatchObject({ name: names.fs, version: 1, serverInfo: { name: "secure-filesystem-server" } });
    const read = fs!.tools.find((t) => t.tool === "read_text_file")!;
    expect(read).toMatchObject({ name: `${names.fs}__read_text_file`, class: { readOnly: true, openWorld: false }, annotations: { readOnlyHint: true } });
    expect(read.inputSchema).toMatchObject({ type: "object", properties: { path: {} } });
    const create = mem!.tools.find((t) => t.tool === "create_entities")!;
    expect(create.class).toEqual({ readOnly: false, idempotent: false, destructive: false, openWorld: false });
    const health = await prisma.mcpServer.findUniqueOrThrow({ where: { name: names.mem } });
    expect(health.lastPid).toBeGreaterThan(0);
    expect(health.lastError).toBeNull();
    expect((health.discoveredTools as unknown[]).length).toBe(mem!.tools.length);
  });

  it("a read-only call returns the text, marked untrusted; a missing file is a tool error the agent sees (isError)", async () => {
    const t = await taskWith([names.fs]);
    const ok = await call(t, "tool-1-0", `${names.fs}__read_text_file`, { path: path.join(root, "notes.md") });
    expect(ok).toMatchObject({ ok: true, output: { server: names.fs, tool: "read_text_file", text: expect.stringContaining("two problems") } });
    expect((ok as { output: { untrusted: string } }).output.untrusted).toMatch(/untrusted/);
    const missing = await call(t, "tool-2-0", `${names.fs}__read_text_file`, { path: path.join(root, "nope.md") });
    expect(missing).toMatchObject({ ok: false, error: { code: "tool_error", message: expect.stringMatching(/nope\.md|ENOENT/) } });
  });

  it("a huge result is cut within the limit and says so", async () => {
    const t = await taskWith([names.fs]);
    const res = await call(t, "tool-1-0", `${names.fs}__read_text_file`, { path: path.join(root, "huge.txt") });
    expect(res.ok).toBe(true);
    const out = (res as { output: { text: string; truncated: { keptBytes: number; totalBytes: number; note: string } } }).output;
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MCP_RESULT_MAX_BYTES);
    expect(out.truncated.totalBytes).toBeGreaterThan(256 * 1024);
    expect(out.truncated.note).toMatch(/cut/);
  });

  it("an image becomes an artifact of the task", async () => {
    const t = await taskWith([names.ev]);
    const res = await call(t, "tool-1-0", `${names.ev}__get-tiny-image`, {});
    expect(res.ok).toBe(true);
    const artifacts = await prisma.artifact.findMany({ where: { taskId: t.taskId } });
    expect(artifacts.length).toBeGreaterThanOrEqual(1);
    // Stored as the PNG it is: its media type, and bytes that start with the PNG signature.
    expect(artifacts[0]!.mime).toBe("image/png");
    expect([...Buffer.from(artifacts[0]!.data!).subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it("a side-effecting call goes through the ledger: the same step again returns the recorded result, one entity", async () => {
    const t = await taskWith([names.mem]);
    const args = { entities: [{ name: `finding-${suffix}`, entityType: "finding", observations: ["MIT license missing"] }] };
    const first = await call(t, "tool-1-0", `${names.mem}__create_entities`, args);
    const again = await call(t, "tool-1-0", `${names.mem}__create_entities`, args);
    expect(first.ok && again.ok).toBe(true);
    expect((again as { output: unknown }).output).toEqual((first as { output: unknown }).output);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId } })).toMatchObject({ status: "committed", repeats: 1 });
    const graph = await call(t, "tool-2-0", `${names.mem}__read_graph`, {});
    expect(((graph as { output: { text: string } }).output.text.match(new RegExp(`finding-${suffix}`, "g")) ?? []).length).toBe(1);
  });

  it("kill -9 of the web app after the server answered, before the ledger recorded it: unresolved_effect, never a second call", async () => {
    const t = await taskWith([names.mem]);
    const entity = `crash-${suffix}`;
    const args = [
      t.taskId,
      t.runId,
      "tool-3-0",
      `${names.mem}__create_entities`,
      JSON.stringify({ entities: [{ name: entity, entityType: "finding", observations: ["x"] }] }),
    ];
    const crashed = runChild(args, "tool:external-after-call");
    expect(crashed.status, crashed.stderr).toBe(137);
    const retried = runChild(args);
    expect(retried.status, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toEqual({ thrown: "unresolved_effect" });
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId } })).toMatchObject({ status: "intent" });
    // Exactly one effect on the memory server (it wrote its graph file before answering).
    const file = readFileSync(path.join(root, "memory.jsonl"), "utf8");
    expect(file.split("\n").filter((l) => l.includes(`"${entity}"`))).toHaveLength(1);
  }, 90_000);

  it("kill -9 of the MCP server with a side-effecting call in flight: escalated at once, the server is restarted for the next call", async () => {
    const t = await taskWith([names.ev]);
    const name = `${names.ev}__trigger-long-running-operation`;
    const pending = call(t, "tool-1-0", name, { duration: 10, steps: 10 });
    // Wait for the first progress notification on the step (the call is in flight), then kill -9 the server.
    for (let i = 0; i < 200; i++) {
      const step = await prisma.step.findUniqueOrThrow({ where: { runId_stepId: { runId: t.runId, stepId: "tool-1-0" } } });
      if (step.progress) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const live = (await liveMcpConnections()).find((c) => c.name === names.ev)!;
    process.kill(live.pid!, "SIGKILL");
    // The intent has no result and the tool is not idempotent: escalated at once, no second call.
    await expect(pending).rejects.toBeInstanceOf(UnresolvedEffectError);
    // The durable step's retry says the same.
    await expect(call(t, "tool-1-0", name, { duration: 10, steps: 10 })).rejects.toBeInstanceOf(UnresolvedEffectError);
    expect(await prisma.sideEffect.count({ where: { taskId: t.taskId } })).toBe(1);
    // The next call starts the server again.
    const echo = await call(t, "tool-2-0", `${names.ev}__echo`, { message: "back" });
    expect(echo).toMatchObject({ ok: true, output: { text: expect.stringContaining("back") } });
    expect((await liveMcpConnections()).find((c) => c.name === names.ev)!.pid).not.toBe(live.pid);
  }, 60_000);

  it("a side-effecting call past callTimeoutMs: a timeout, then the retry escalates unresolved_effect; no second call", async () => {
    const name = `slow-${suffix}`;
    await upsertMcpServer({
      prisma,
      spec: {
        name,
        transport: { type: "stdio", command: process.execPath, args: [bin("server-everything"), "stdio"] },
        callTimeoutMs: 1000,
        tools: { "trigger-long-running-operation": { readOnly: false, idempotent: false } },
      },
      actor: "test",
    });
    const t = await taskWith([name]);
    const tool = `${name}__trigger-long-running-operation`;
    await expect(call(t, "tool-1-0", tool, { duration: 3, steps: 3 })).rejects.toBeInstanceOf(McpCallTimeoutError);
    await expect(call(t, "tool-1-0", tool, { duration: 3, steps: 3 })).rejects.toBeInstanceOf(UnresolvedEffectError);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId } })).toMatchObject({ status: "intent" });
  }, 60_000);

  it("an open-world tool whose argument carries a secret is stopped before the call: nothing sent", async () => {
    const t = await taskWith([names.ev]);
    const res = await call(t, "tool-1-0", `${names.ev}__gzip-file-as-resource`, { name: "leak.txt", data: `deploy token ${TOKEN}`, outputType: "resource" });
    expect(res).toMatchObject({ ok: false, error: { code: "approval_required", message: expect.stringMatching(/secret|GitHub/i) } });
    expect(JSON.stringify(res)).not.toContain(TOKEN);
    expect(await prisma.sideEffect.count({ where: { taskId: t.taskId } })).toBe(0);
    expect(await prisma.artifact.count({ where: { taskId: t.taskId } })).toBe(0);
  });

  it("a server whose tools changed since launch: the run keeps its list, an alert is raised once", async () => {
    const name = `chg-${suffix}`;
    await register(name, [bin("server-memory")], { env: { MEMORY_FILE_PATH: { value: path.join(root, "chg.jsonl") } } });
    const t = await taskWith([name]);
    // The admin points the server at another program: a new version with other tools.
    await register(name, [bin("server-filesystem"), root]);
    const res = await call(t, "tool-1-0", `${name}__read_graph`, {});
    expect(res).toMatchObject({ ok: false, error: { code: "tool_error" } });
    await call(t, "tool-2-0", `${name}__read_graph`, {});
    const alerts = await prisma.alert.findMany({ where: { runId: t.runId, kind: MCP_TOOLS_CHANGED_ALERT } });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.evidence).toMatchObject({
      server: name,
      missing: expect.arrayContaining(["read_graph"]),
      added: expect.arrayContaining(["read_text_file"]),
    });
    // The run still offers exactly its snapshot.
    expect([...mcpToolDefinitions(t.snapshot).keys()]).toContain(`${name}__read_graph`);
  }, 60_000);

  it("a changed tool list is noticed at a segment start (resume, continue) before any call; an unchanged one is not", async () => {
    const name = `seg-${suffix}`;
    await register(name, [bin("server-memory")], { env: { MEMORY_FILE_PATH: { value: path.join(root, "seg.jsonl") } } });
    const t = await taskWith([name, names.fs]);
    const check = (stepId: string) => checkMcpToolsChanged({ prisma, taskId: t.taskId, runId: t.runId, stepId, snapshot: t.snapshot });
    expect(await check("mcp-tools-check-1")).toEqual([]);
    expect(await prisma.alert.count({ where: { runId: t.runId, kind: MCP_TOOLS_CHANGED_ALERT } })).toBe(0);
    // Between two segments the admin points the server at another program.
    await register(name, [bin("server-filesystem"), root]);
    expect(await check("mcp-tools-check-2")).toEqual([name]);
    // The next segment (or a resume of the run) notices it again, without a second alert.
    expect(await check("mcp-tools-check-3")).toEqual([name]);
    const alerts = await prisma.alert.findMany({ where: { runId: t.runId, kind: MCP_TOOLS_CHANGED_ALERT } });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ stepId: "mcp-tools-check-2", evidence: { server: name, missing: expect.arrayContaining(["create_entities"]) } });
    // The run page and the API show what changed with the alert itself (its step is no step of the timeline).
    const reader = createCaller({ prisma, actor: "mcp-viewer", principal: testPrincipal("mcp-viewer", ["manager"]) });
    const shown = (await reader.task.get({ taskId: t.taskId })).alerts.find((a) => a.kind === MCP_TOOLS_CHANGED_ALERT)!;
    expect(shown).toMatchObject({
      stepId: "mcp-tools-check-2",
      onTimeline: false,
      detail: {
        kind: "mcp_tools_changed",
        server: name,
        added: expect.arrayContaining(["read_text_file", "list_allowed_directories"]),
        removed: expect.arrayContaining(["create_entities", "read_graph"]),
        changed: [],
      },
    });
    expect((shown.detail as { added: string[] }).added).not.toContain("create_entities");
    // The run's offer is still its snapshot.
    expect([...mcpToolDefinitions(t.snapshot).keys()]).toContain(`${name}__create_entities`);
  }, 60_000);

  it("Streamable HTTP: discovery and a call over HTTP (server-everything streamableHttp)", async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, "127.0.0.1", () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const server = spawn(process.execPath, [bin("server-everything"), "streamableHttp"], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stderr.on("data", (d: Buffer) => d.toString().includes(String(port)) && resolve());
        server.once("exit", (code) => reject(new Error(`server-everything exited ${code}`)));
      });
      const name = `http-${suffix}`;
      await upsertMcpServer({ prisma, spec: { name, transport: { type: "http", url: `http://127.0.0.1:${port}/mcp` } }, actor: "test" });
      const t = await taskWith([name]);
      expect(t.snapshot.servers[0]!.serverInfo).toMatchObject({ name: "mcp-servers/everything" });
      const res = await call(t, "tool-1-0", `${name}__echo`, { message: "over http" });
      expect(res).toMatchObject({ ok: true, output: { server: name, text: expect.stringContaining("over http") } });
      expect((await prisma.mcpServer.findUniqueOrThrow({ where: { name } })).lastPid).toBeNull();
    } finally {
      server.kill("SIGKILL");
    }
  }, 60_000);

  it("a server that will not start fails discovery with its stderr in words, and its health says so", async () => {
    const name = `bad-${suffix}`;
    await upsertMcpServer({
      prisma,
      spec: { name, transport: { type: "stdio", command: process.execPath, args: ["-e", "console.error('config missing: API_TOKEN'); process.exit(3)"] } },
      actor: "test",
    });
    const failed = discoverMcpToolSnapshot({ prisma, selections: [{ server: name }] });
    await expect(failed).rejects.toBeInstanceOf(AppError);
    await expect(failed).rejects.toThrow(/could not start.*config missing: API_TOKEN/s);
    expect((await prisma.mcpServer.findUniqueOrThrow({ where: { name } })).lastError).toMatch(/config missing: API_TOKEN/);
  });
});

describe("MCP calls as a real server receives them (our recording server)", () => {
  it("a side-effecting call sends the ledger's key in _meta and as the idempotency argument; a repeat sends nothing", async () => {
    const t = await taskWith([names.rec]);
    const tool = t.snapshot.servers[0]!.tools.find((x) => x.tool === "create_ticket")!;
    expect(tool).toMatchObject({ idempotencyArgument: "idempotencyKey", class: { readOnly: false, idempotent: false } });
    const before = recorded().length;
    const first = await call(t, "tool-1-0", `${names.rec}__create_ticket`, { title: "one" });
    expect(first).toMatchObject({ ok: true, output: { text: 'created ticket "one"' } });
    const row = await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId, stepId: "tool-1-0" } });
    expect(row.idempotencyKey).toBe(`${t.taskId}:${t.runId}:tool-1-0`);
    const seen = recorded().slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.meta).toMatchObject({ "longhaul/idempotencyKey": row.idempotencyKey });
    expect(seen[0]!.args).toEqual({ title: "one", idempotencyKey: row.idempotencyKey });
    // The durable step again (a retry, a replay): the recorded result, and the server hears nothing.
    const again = await call(t, "tool-1-0", `${names.rec}__create_ticket`, { title: "one" });
    expect((again as { output: unknown }).output).toEqual((first as { output: unknown }).output);
    expect(recorded().slice(before)).toHaveLength(1);
    // Another step is another effect, with another key (the same arguments again would be deduplicated by the ledger).
    await call(t, "tool-2-0", `${names.rec}__create_ticket`, { title: "two" });
    const second = recorded().slice(before);
    expect(second).toHaveLength(2);
    expect(second[1]!.meta!["longhaul/idempotencyKey"]).toBe(`${t.taskId}:${t.runId}:tool-2-0`);
    expect(second[1]!.args).toMatchObject({ title: "two" });
    expect(second[1]!.args.idempotencyKey).toBe(second[1]!.meta!["longhaul/idempotencyKey"]);
    expect(second[1]!.args.idempotencyKey).not.toBe(row.idempotencyKey);
  }, 60_000);

  it("a replayed side-effecting call whose recorded output is not an MCP output is refused naming the column and key", async () => {
    const t = await taskWith([names.rec]);
    await call(t, "tool-1-0", `${names.rec}__create_ticket`, { title: "replayed" });
    const { idempotencyKey } = await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId, stepId: "tool-1-0" } });
    await prisma.$executeRaw`UPDATE side_effect SET result = jsonb_set(result, '{text}', '5') WHERE "idempotencyKey" = ${idempotencyKey}`;
    const before = recorded().length;
    await expect(call(t, "tool-1-0", `${names.rec}__create_ticket`, { title: "replayed" })).rejects.toMatchObject({
      name: "JsonColumnError",
      column: "SideEffect.result",
      row: idempotencyKey,
      message: expect.stringMatching(/text: /),
    });
    // Refused on reading the ledger: the server heard nothing a second time.
    expect(recorded().length).toBe(before);
  }, 60_000);

  it("a side-effecting tool without an idempotency field gets the key in _meta only, its arguments unchanged", async () => {
    const t = await taskWith([names.rec]);
    expect(t.snapshot.servers[0]!.tools.find((x) => x.tool === "send_note")!.idempotencyArgument).toBeNull();
    const before = recorded().length;
    const res = await call(t, "tool-1-0", `${names.rec}__send_note`, { text: "hello" });
    expect(res).toMatchObject({ ok: true, output: { idempotencyKey: `${t.taskId}:${t.runId}:tool-1-0` } });
    const seen = recorded().slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.args).toEqual({ text: "hello" });
    expect(seen[0]!.meta).toMatchObject({ "longhaul/idempotencyKey": `${t.taskId}:${t.runId}:tool-1-0` });
  }, 60_000);

  it("progress notifications reach the running step as the task page reads it (task.step), the latest one included", async () => {
    const t = await taskWith([names.rec]);
    const release = path.join(root, `release-${randomUUID()}`);
    const reader = createCaller({ prisma, actor: "mcp-viewer", principal: testPrincipal("mcp-viewer", ["manager"]) });
    const pending = call(t, "tool-1-0", `${names.rec}__slow_job`, { releaseFile: release, steps: 3 });
    // The server sends progress 1, 2, 3 (of 4) at once and then waits: the page must end up with the last one.
    let shown: unknown = null;
    for (let i = 0; i < 400; i++) {
      // (NOT_FOUND until `call` has begun the step)
      const step = await reader.task.step({ runId: t.runId, stepId: "tool-1-0" }).catch(() => null);
      shown = step?.progress ?? null;
      if (step && (shown as { progress?: number } | null)?.progress === 3) {
        expect(step.status).toBe("running");
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(shown).toMatchObject({ progress: 3, total: 4, message: "step 3 of 4" });
    const seen = recorded().filter((r) => r.tool === "slow_job" && r.args.releaseFile === release);
    expect(seen[0]!.meta).toHaveProperty("progressToken");
    writeFileSync(release, "");
    expect(await pending).toMatchObject({ ok: true, output: { text: "job done" } });
  }, 60_000);
});

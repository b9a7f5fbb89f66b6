import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Prisma } from "../../server/db/client.ts";
import { upsertMcpServer } from "../../server/db/mcp-server-repository.ts";
import { beginStep } from "../../server/db/run-repository.ts";
import { UnresolvedEffectError } from "../../server/tools/ledger.ts";
import { discoverMcpToolSnapshot } from "../../server/tools/mcp/discover-tools.ts";
import { MCP_RESULT_MAX_BYTES, MCP_SERVER_EXITED_ALERT, mcpToolDefinitions } from "../../server/tools/mcp/mcp-tools.ts";
import { liveMcpConnections, stopAllMcpServers } from "../../server/tools/mcp/runtime.ts";
import { MCP_MESSAGE_MAX_BYTES } from "../../server/tools/mcp/stdio-transport.ts";
import type { McpToolSnapshot } from "../../server/domain/mcp-tool-snapshot.ts";
import { executeToolCall } from "../../server/tools/registry.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The MCP boundary as a misbehaving server meets it: our own stdio server on the official SDK
// (tests/fixtures/mcp-misbehaving-server.ts) that sends huge results, dies mid-call, or runs behind
// a launcher (as `npx` does) whose kill leaves the real server holding the pipe. Real PostgreSQL,
// the real tool gateway and ledger.

const url = testDatabaseUrl();
const prisma = createPrismaClient(url);
const suffix = randomUUID().slice(0, 6);
const fixture = path.join(process.cwd(), "tests", "fixtures", "mcp-misbehaving-server.ts");
let root = "";
let profileId = "";
const direct = `bad-${suffix}`;
const launched = `npxlike-${suffix}`;
const recordFile = () => path.join(root, "recorded.jsonl");

function recorded(): { tool: string; meta: Record<string, unknown> | null; args: Record<string, unknown>; pid: number }[] {
  if (!existsSync(recordFile())) return [];
  return readFileSync(recordFile(), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { tool: string; meta: Record<string, unknown> | null; args: Record<string, unknown>; pid: number });
}

async function taskWith(servers: string[]): Promise<{ taskId: string; runId: string; snapshot: McpToolSnapshot }> {
  const snapshot = (await discoverMcpToolSnapshot({ prisma, selections: servers.map((server) => ({ server })) }))!;
  const taskId = `t-${randomUUID()}`;
  const runId = `r-${randomUUID()}`;
  await prisma.task.create({
    data: { id: taskId, goal: "mcp boundary test", profileId, stepBudget: 50, workspace: root, mcpTools: snapshot as unknown as Prisma.InputJsonValue },
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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls `read` until `done` holds (an observed state, not a timed sleep); fails after `ms`. */
async function until<T>(read: () => Promise<T> | T, done: (v: T) => boolean, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${ms} ms; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), "longhaul-mcp-boundary-"));
  profileId = (await prisma.agentProfile.create({ data: { name: `mcpb-${suffix}`, model: "scripted", tools: [] } })).id;
  const env = { MCP_RECORD_FILE: { value: recordFile() } };
  await upsertMcpServer({ prisma, spec: { name: direct, transport: { type: "stdio", command: process.execPath, args: [fixture], env } }, actor: "test" });
  // A launcher in front of the real server, as `npx some-server` is: the registered pid is the launcher's.
  const launcher = `const c = require("node:child_process").spawn(process.execPath, [${JSON.stringify(fixture)}], { stdio: "inherit" }); c.on("exit", (code) => process.exit(code ?? 1));`;
  await upsertMcpServer({
    prisma,
    spec: { name: launched, transport: { type: "stdio", command: process.execPath, args: ["-e", launcher], env }, callTimeoutMs: 600_000 },
    actor: "test",
  });
}, 60_000);

afterAll(async () => {
  await stopAllMcpServers();
  await prisma.mcpServer.deleteMany({ where: { name: { endsWith: suffix } } });
  await prisma.$disconnect();
  rmSync(root, { recursive: true, force: true });
});

describe("MCP results of any size", () => {
  it("a 10 MiB text result is read and cut to the transcript's limit with the note; the server is not restarted", async () => {
    const t = await taskWith([direct]);
    const before = (await liveMcpConnections()).find((c) => c.name === direct)!.pid;
    const res = await call(t, "tool-1-0", `${direct}__big_text`, { bytes: 10 * 1024 * 1024 });
    expect(res.ok, JSON.stringify(res).slice(0, 500)).toBe(true);
    const out = (res as { output: { text: string; truncated: { keptBytes: number; totalBytes: number; note: string } } }).output;
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MCP_RESULT_MAX_BYTES);
    expect(out.text.startsWith("0123456789abcdef")).toBe(true);
    expect(out.truncated.totalBytes).toBeGreaterThanOrEqual(10 * 1024 * 1024);
    expect(out.truncated.note).toContain(`${out.truncated.keptBytes} of ${out.truncated.totalBytes} bytes kept`);
    expect((await liveMcpConnections()).find((c) => c.name === direct)!.pid).toBe(before);
    expect(await prisma.alert.count({ where: { runId: t.runId } })).toBe(0);
    const step = await prisma.step.findUniqueOrThrow({ where: { runId_stepId: { runId: t.runId, stepId: "tool-1-0" } } });
    expect(step.attempts).toBe(1);
  }, 120_000);

  it("a result longer than the transport keeps whole is cut while read (bounded memory) and the task goes on", async () => {
    const t = await taskWith([direct]);
    const bytes = MCP_MESSAGE_MAX_BYTES + 4 * 1024 * 1024;
    const res = await call(t, "tool-1-0", `${direct}__big_text`, { bytes });
    expect(res.ok, JSON.stringify(res).slice(0, 500)).toBe(true);
    const out = (res as { output: { text: string; truncated: { keptBytes: number; totalBytes: number } } }).output;
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(MCP_RESULT_MAX_BYTES);
    expect(out.truncated.totalBytes).toBeGreaterThan(bytes);
    // The same connection answers the next call.
    const next = await call(t, "tool-2-0", `${direct}__big_text`, { bytes: 5 });
    expect(next).toMatchObject({ ok: true, output: { text: "01234" } });
  }, 180_000);
});

describe("MCP binary results", () => {
  it("an image is stored as its bytes with its media type; a blob resource too", async () => {
    const t = await taskWith([direct]);
    const res = await call(t, "tool-1-0", `${direct}__big_image`, { bytes: 3000 });
    expect(res).toMatchObject({ ok: true, output: { artifacts: [{ mime: "image/png", bytes: 3000, name: expect.stringMatching(/\.png$/) }] } });
    const image = await prisma.artifact.findFirstOrThrow({ where: { taskId: t.taskId, stepId: "tool-1-0" } });
    expect(image.mime).toBe("image/png");
    expect(image.content).toBe("");
    expect(Buffer.from(image.data!).length).toBe(3000);
    expect(Buffer.from(image.data!)[1]).toBe((31 + 7) & 0xff);
    await call(t, "tool-2-0", `${direct}__blob`, { mimeType: "application/x-thing" });
    const blob = await prisma.artifact.findFirstOrThrow({ where: { taskId: t.taskId, stepId: "tool-2-0" } });
    expect(blob).toMatchObject({ mime: "application/x-thing", bytes: 10, name: expect.stringMatching(/\.xthing$/) });
    expect([...Buffer.from(blob.data!)]).toEqual([0, 1, 2, 253, 254, 255, 0x89, 0x50, 0x4e, 0x47]);
  });
});

describe("an MCP server that exits mid-call", () => {
  it("read-only: noticed at once, retried on a fresh start; alert, attempt, health and log say so", async () => {
    const t = await taskWith([direct]);
    const marker = path.join(root, `marker-${randomUUID()}`);
    const first = (await liveMcpConnections()).find((c) => c.name === direct)!.pid!;
    const res = await call(t, "tool-1-0", `${direct}__flaky_read`, { marker });
    expect(res).toMatchObject({ ok: true, output: { text: expect.stringMatching(/^answered by \d+$/) } });
    const second = (await liveMcpConnections()).find((c) => c.name === direct)!.pid!;
    expect(second).not.toBe(first);
    const step = await prisma.step.findUniqueOrThrow({ where: { runId_stepId: { runId: t.runId, stepId: "tool-1-0" } } });
    expect(step.attempts).toBe(2);
    const [alert] = await prisma.alert.findMany({ where: { runId: t.runId, kind: MCP_SERVER_EXITED_ALERT } });
    expect(alert).toMatchObject({
      stepId: "tool-1-0",
      severity: "warning",
      message: expect.stringContaining(`exited (exit code 3, pid ${first})`),
      evidence: { server: direct, tool: "flaky_read", action: "retried", pid: first, code: 3, signal: null },
    });
    expect((alert!.evidence as { error: string }).error).toContain("dying on the first call");
    const health = await until(
      () => prisma.mcpServer.findUniqueOrThrow({ where: { name: direct } }),
      (h) => h.lastPid === second,
    );
    expect(health).toMatchObject({ lastExitCode: 3, lastExitSignal: null, lastPid: second });
    expect(health.restarts).toBeGreaterThanOrEqual(1);
    expect(health.lastExitAt).not.toBeNull();
  }, 60_000);

  it("behind a launcher (as npx runs a server): kill -9 of the registered pid is noticed at once, the orphan goes too", async () => {
    const t = await taskWith([launched]);
    const conn = (await liveMcpConnections()).find((c) => c.name === launched)!;
    const release = path.join(root, `release-${randomUUID()}`);
    const pending = call(t, "tool-1-0", `${launched}__slow_read`, { releaseFile: release });
    // The call is in flight once the real server (the launcher's child) recorded it.
    const inFlight = await until(recorded, (r) => r.some((x) => x.tool === "slow_read" && x.args.releaseFile === release));
    const realServer = inFlight.find((x) => x.args.releaseFile === release)!.pid;
    expect(realServer).not.toBe(conn.pid);
    process.kill(conn.pid!, "SIGKILL");
    // Noticed while the call waits (callTimeoutMs is 10 minutes): the alert, and the orphan is gone.
    const alert = await until(
      () => prisma.alert.findFirst({ where: { runId: t.runId, kind: MCP_SERVER_EXITED_ALERT } }),
      (a) => a !== null,
    );
    expect(alert!.evidence).toMatchObject({ signal: "SIGKILL", pid: conn.pid, action: "retried" });
    await until(
      () => alive(realServer),
      (a) => !a,
    );
    // Retried on a fresh start: the new server has the call; released, it answers.
    await until(recorded, (r) => r.filter((x) => x.tool === "slow_read" && x.args.releaseFile === release).length === 2);
    writeFileSync(release, "");
    expect(await pending).toMatchObject({ ok: true, output: { text: expect.stringMatching(/^released \d+$/) } });
    const health = await prisma.mcpServer.findUniqueOrThrow({ where: { name: launched } });
    expect(health.lastExitSignal).toBe("SIGKILL");
    expect(health.lastPid).not.toBe(conn.pid);
    expect(alive(health.lastPid!)).toBe(true);
  }, 60_000);

  it("side effect, not idempotent: the exit escalates at once (unresolved_effect), never a second call", async () => {
    const t = await taskWith([direct]);
    const before = recorded().filter((r) => r.tool === "crash_effect").length;
    await expect(call(t, "tool-1-0", `${direct}__crash_effect`, { title: "once" })).rejects.toBeInstanceOf(UnresolvedEffectError);
    expect(recorded().filter((r) => r.tool === "crash_effect")).toHaveLength(before + 1);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId } })).toMatchObject({ status: "intent" });
    const alert = await prisma.alert.findFirstOrThrow({ where: { runId: t.runId, kind: MCP_SERVER_EXITED_ALERT } });
    expect(alert).toMatchObject({ severity: "critical", evidence: { action: "escalated", code: 4 } });
  }, 60_000);

  it("side effect, idempotent: called again with the same key on a fresh start, committed once", async () => {
    const t = await taskWith([direct]);
    const marker = path.join(root, `marker-${randomUUID()}`);
    const res = await call(t, "tool-1-0", `${direct}__idempotent_effect`, { marker });
    const key = `${t.taskId}:${t.runId}:tool-1-0`;
    expect(res).toMatchObject({ ok: true, output: { text: `done with key ${key}` } });
    const calls = recorded().filter((r) => r.tool === "idempotent_effect" && r.args.marker === marker);
    expect(calls).toHaveLength(2);
    expect(calls.map((c) => c.args.idempotencyKey)).toEqual([key, key]);
    expect(calls[0]!.pid).not.toBe(calls[1]!.pid);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId: t.taskId } })).toMatchObject({ status: "committed" });
    const alert = await prisma.alert.findFirstOrThrow({ where: { runId: t.runId, kind: MCP_SERVER_EXITED_ALERT } });
    expect(alert.evidence).toMatchObject({ action: "called_again", code: 5 });
  }, 60_000);
});

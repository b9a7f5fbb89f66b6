/**
 * `npm run bench:mcp -- [--calls 200]` — what an MCP tool step costs over a built-in tool step
 *. Each measured call is one whole tool-step body (`runToolStep`: the step row begun, the
 * gateway, the tool, the step row ended) against an ephemeral embedded PostgreSQL with all
 * migrations, on the real reference servers from npm, spoken to by the official SDK client:
 *
 * - read-only: built-in `read_file` vs `files__read_text_file` (server-filesystem, stdio) of the same
 *   small file; `everything__echo` over stdio and over Streamable HTTP (server-everything);
 * - side effect through the ledger: built-in `send_email` (outbox) vs `memory__create_entities`
 *   (server-memory, stdio, intent + result rows around the call).
 *
 * Servers are started once before measuring (start-up is reported apart: the launch pays it). The
 * first 10 calls of each kind are warm-up. Prints progress to stderr and one JSON line last:
 * {calls, startMs: {...}, p50Ms: {...}, p95Ms: {...}, overheadP50Ms: {...}}.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { prismaAgentPorts } from "../server/inngest/agent-ports.ts";
import { runToolStep } from "../server/agent/tool-step.ts";
import { createPrismaClient } from "../server/db/client.ts";
import { taskMcpToolsJson } from "../server/db/json-columns.ts";
import { upsertMcpServer, discoverMcpToolSnapshot, mcpToolDefinitions, stopAllMcpServers } from "../server/features/mcp/index.ts";
import { progress, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const TAG = "bench-mcp";
const SCRIPT = defineScript({
  program: "npm run bench:mcp --",
  summary: "What an MCP tool step costs over a built-in tool step (stdio and Streamable HTTP, real servers from npm).",
  flags: {
    calls: { type: "string", value: "<n>", description: "measured calls of each kind (after 10 warm-up calls)", int: { min: 1, max: 1_000_000 }, default: 200 },
  },
  examples: ["npm run bench:mcp -- --calls 200"],
});
const flags = parseScriptArgs(SCRIPT);
const WARMUP = 10;
const bin = (pkg: string) => join(process.cwd(), "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { method: "GET" });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const q = (times: number[], p: number) => {
  const s = [...times].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 100) / 100;
};

async function main(): Promise<void> {
  const { calls } = flags;
  const db = await startBenchDatabase({ name: "bench_mcp", tag: TAG });
  const prisma = createPrismaClient(db.url, { max: 4 });
  const workspace = mkdtempSync(join(tmpdir(), "longhaul-bench-mcp-"));
  writeFileSync(join(workspace, "notes.md"), "# Notes\nTODO: measure the MCP step overhead.\n".repeat(20));
  const httpPort = await freePort();
  const http = spawn(process.execPath, [bin("server-everything"), "streamableHttp"], { env: { ...process.env, PORT: String(httpPort) }, stdio: "ignore" });
  try {
    await waitForHttp(`http://127.0.0.1:${httpPort}/mcp`);
    const stdio = (args: string[], env: Record<string, { value: string }> = {}) => ({ type: "stdio", command: process.execPath, args, env });
    for (const spec of [
      { name: "files", transport: stdio([bin("server-filesystem"), workspace]) },
      { name: "memory", transport: stdio([bin("server-memory")], { MEMORY_FILE_PATH: { value: join(workspace, "memory.jsonl") } }) },
      { name: "everything", transport: stdio([bin("server-everything"), "stdio"]) },
      { name: "everything-http", transport: { type: "http", url: `http://127.0.0.1:${httpPort}/mcp` } },
    ])
      await upsertMcpServer({ prisma, spec, actor: "bench" });
    const startMs: Record<string, number> = {};
    const t0 = performance.now();
    const snapshot = (await discoverMcpToolSnapshot({
      prisma,
      selections: [{ server: "files" }, { server: "memory" }, { server: "everything" }, { server: "everything-http" }],
    }))!;
    startMs.discoverAll = Math.round(performance.now() - t0);
    const extra = mcpToolDefinitions(snapshot);
    const profile = await prisma.agentProfile.create({ data: { name: "bench-mcp", model: "scripted", tools: [] } });
    const taskId = "task_bench_mcp";
    const runId = "run_bench_mcp";
    await prisma.task.create({
      data: { id: taskId, goal: "bench", profileId: profile.id, stepBudget: 100_000, workspace, mcpTools: taskMcpToolsJson.encode(snapshot) },
    });
    await prisma.run.create({ data: { id: runId, taskId } });
    const ports = prismaAgentPorts({ prisma });
    const kinds: Record<string, (i: number) => { name: string; args: unknown; sideEffect?: boolean }> = {
      builtinReadFile: () => ({ name: "read_file", args: { path: "notes.md" } }),
      mcpStdioReadFile: () => ({ name: "files__read_text_file", args: { path: join(workspace, "notes.md") } }),
      mcpStdioEcho: (i) => ({ name: "everything__echo", args: { message: `hello ${i}` } }),
      mcpHttpEcho: (i) => ({ name: "everything-http__echo", args: { message: `hello ${i}` } }),
      builtinSendEmail: (i) => ({ name: "send_email", args: { to: "a@example.com", subject: `bench ${i}`, body: "b" }, sideEffect: true }),
      mcpStdioCreateEntity: (i) => ({
        name: "memory__create_entities",
        args: { entities: [{ name: `e${i}`, entityType: "bench", observations: ["x"] }] },
        sideEffect: true,
      }),
    };
    const p50: Record<string, number> = {};
    const p95: Record<string, number> = {};
    let index = 0;
    for (const [kind, make] of Object.entries(kinds)) {
      const times: number[] = [];
      for (let i = 0; i < calls + WARMUP; i++) {
        const { name, args } = make(i);
        const stepId = `tool-${kind}-${i}`;
        const s = performance.now();
        const result = await runToolStep({
          ports,
          taskId,
          runId,
          workspace,
          stepId,
          index: index++,
          call: { id: stepId, name, arguments: JSON.stringify(args) },
          fingerprint: null,
          extra,
        });
        if (i >= WARMUP) times.push(performance.now() - s);
        if (!result.ok) throw new Error(`${kind}: ${result.error.code} ${result.error.message}`);
      }
      p50[kind] = q(times, 0.5);
      p95[kind] = q(times, 0.95);
      progress(TAG, `${kind}: p50 ${p50[kind]} ms, p95 ${p95[kind]} ms over ${calls} calls`);
    }
    const overheadP50Ms = {
      readOnlyStdio: Math.round((p50.mcpStdioReadFile! - p50.builtinReadFile!) * 100) / 100,
      echoStdio: Math.round((p50.mcpStdioEcho! - p50.builtinReadFile!) * 100) / 100,
      echoHttp: Math.round((p50.mcpHttpEcho! - p50.builtinReadFile!) * 100) / 100,
      sideEffectStdio: Math.round((p50.mcpStdioCreateEntity! - p50.builtinSendEmail!) * 100) / 100,
    };
    console.log(JSON.stringify({ calls, startMs, p50Ms: p50, p95Ms: p95, overheadP50Ms }));
  } finally {
    await stopAllMcpServers();
    http.kill("SIGKILL");
    await prisma.$disconnect();
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

#!/usr/bin/env node
/**
 * `node scripts/lib/mcp-count-proxy.mjs <log.jsonl> <command> [args…]`: a transparent stdio proxy in
 * front of an MCP server, for chaos (scripts/chaos-stack.ts). It starts `<command> args…`, passes
 * stdin and stdout through line by line (MCP's stdio transport: one JSON-RPC message per line) and,
 * before forwarding, appends to `<log.jsonl>` (synchronously, so a kill -9 right after loses nothing):
 *
 * - `{"kind":"call","pid","id","tool","key","entities"}` for every `tools/call` request that reaches the
 *   server (`key`: the `_meta["longhaul/idempotencyKey"]` Longhaul sends, `entities`: the names in a
 *   memory server `create_entities` call);
 * - `{"kind":"result","pid","id","key","isError"}` for the server's answer to it.
 *
 * So the harness can count how often the server really got (and answered) each effect. Exits with
 * the server's exit code when the server dies (the client then sees the connection close, as it
 * would without the proxy).
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [logFile, command, ...args] = process.argv.slice(2);
if (!logFile || !command) {
  process.stderr.write("usage: mcp-count-proxy.mjs <log.jsonl> <command> [args…]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const pending = new Map();
const log = (entry) => appendFileSync(logFile, `${JSON.stringify({ ...entry, pid: child.pid, atMs: Date.now() })}\n`);

createInterface({ input: process.stdin })
  .on("line", (line) => {
    try {
      const msg = JSON.parse(line);
      if (msg && msg.method === "tools/call" && msg.id !== undefined) {
        const key = msg.params?._meta?.["longhaul/idempotencyKey"] ?? null;
        const entities = Array.isArray(msg.params?.arguments?.entities) ? msg.params.arguments.entities.map((e) => String(e?.name)) : [];
        pending.set(msg.id, key);
        log({ kind: "call", id: msg.id, tool: String(msg.params?.name), key, entities });
      }
    } catch {
      // not JSON: pass it on untouched
    }
    child.stdin.write(`${line}\n`);
  })
  .on("close", () => child.stdin.end());

createInterface({ input: child.stdout }).on("line", (line) => {
  try {
    const msg = JSON.parse(line);
    if (msg && msg.id !== undefined && pending.has(msg.id) && msg.method === undefined) {
      log({ kind: "result", id: msg.id, key: pending.get(msg.id), isError: Boolean(msg.error || msg.result?.isError) });
      pending.delete(msg.id);
    }
  } catch {
    // not JSON
  }
  process.stdout.write(`${line}\n`);
});

child.on("exit", (code, signal) => process.exit(code ?? (signal ? 137 : 1)));
child.stdin.on("error", () => undefined);

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerSpec, McpValue } from "../../../lib/contracts/mcp.ts";
import { namedVariables } from "../../env.ts";
import { discoveredToolSchema, type DiscoveredTool } from "../../domain/mcp-tool-snapshot.ts";
import { exitWords, LonghaulStdioTransport, type McpProcessExit } from "./stdio-transport.ts";

/**
 * Longhaul's MCP client runtime, over the official SDK (`@modelcontextprotocol/sdk` Client with
 * Longhaul's stdio transport — server/tools/mcp/stdio-transport.ts, the SDK's `Transport` over a
 * child process — or the SDK's StreamableHTTPClientTransport; the protocol is never written by hand
 * here).
 *
 * - One connection per registered server and version per process, started on demand by the first
 *   call that needs it and reused by every later step.
 * - A stdio server that exits is noticed at once (the process's `exit`, not the end of its pipes,
 *   which a launcher's leftover child may hold open); an http connection that closes, through the
 *   transport's `onclose`. The starter's `onExit` hears about an unexpected exit (code or signal,
 *   stderr); the next call starts the server again. A call in flight when it dies fails with
 *   {@link McpConnectionLostError} (with the exit), and the gateway retries or escalates it as the
 *   tool's class says.
 * - Timeouts: `startTimeoutMs` bounds spawn + `initialize` + `tools/list`; `callTimeoutMs` bounds one
 *   `tools/call` (progress notifications do not extend it).
 * - Stopped with the process: on SIGTERM / SIGINT {@link stopAllMcpServers} closes every client
 *   (the SDK ends a stdio child's stdin, then SIGTERM, then SIGKILL); an `exit` hook SIGKILLs any
 *   stdio child still alive, so no server outlives Longhaul. A stdio server whose parent was killed with SIGKILL sees its stdin
 *   close and exits (the reference servers do: tests/integration/mcp-lifecycle.test.ts).
 * - stderr of a stdio server is kept (the last {@link STDERR_TAIL_BYTES}) and quoted in every error.
 */

/** Bytes of a stdio server's stderr kept for error messages. */
export const STDERR_TAIL_BYTES = 4096;

/** Client identity sent in `initialize`. */
const CLIENT_INFO = { name: "longhaul", version: "0.1.0" };

/** A server could not be started or connected to (spawn failure, exit during `initialize`, timeout, HTTP error): the message says why, with its stderr. */
export class McpServerStartError extends Error {
  readonly server: string;
  readonly stderr: string;
  constructor(server: string, message: string, stderr: string, options?: { cause?: unknown }) {
    super(`MCP server "${server}" could not start: ${message}${stderr ? `; its stderr: ${stderr.trim()}` : ""}`, options);
    this.name = "McpServerStartError";
    this.server = server;
    this.stderr = stderr;
  }
}

/** The connection closed while a call was in flight (the server died or the HTTP stream broke): whether the call took effect is unknown. */
export class McpConnectionLostError extends Error {
  readonly server: string;
  /** How the stdio process ended, when it did (null for http or when it had not exited). */
  readonly exit: McpProcessExit | null;
  constructor(server: string, message: string, options?: { cause?: unknown; exit?: McpProcessExit | null }) {
    super(message, options);
    this.name = "McpConnectionLostError";
    this.server = server;
    this.exit = options?.exit ?? null;
  }
}

/** An unexpected exit of a stdio server, as the starter's `onExit` hears it. */
export interface McpServerExit extends McpProcessExit {
  server: string;
  version: number;
  /** The last of its stderr (≤ {@link STDERR_TAIL_BYTES}). */
  stderr: string;
}

/** Told about a server's life by the runtime (the caller that started it gives them). */
export interface McpLifecycleHooks {
  /** A new process (or http connection) is up and listed its tools; awaited before the connection is handed out. Errors thrown are ignored. */
  onStart?: (connection: McpConnection) => void | Promise<void>;
  /** The stdio process exited without Longhaul asking it to (a crash, a kill from outside). Errors thrown are ignored. */
  onExit?: (exit: McpServerExit) => void | Promise<void>;
}

/** A call ran past the server's `callTimeoutMs`: whether it took effect is unknown. */
export class McpCallTimeoutError extends Error {
  readonly server: string;
  constructor(server: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`MCP server "${server}" did not answer the call within ${timeoutMs} ms (callTimeoutMs)`, options);
    this.name = "McpCallTimeoutError";
    this.server = server;
  }
}

/** What a registered server is, as the runtime starts it. */
export interface McpServerHandle {
  name: string;
  version: number;
  spec: McpServerSpec;
}

/** One live connection. */
export interface McpConnection {
  name: string;
  version: number;
  /** Pid of the stdio process, null for http. */
  pid: number | null;
  serverInfo: { name: string; version: string } | null;
  tools: DiscoveredTool[];
  startedAt: Date;
  /** The last stderr of the stdio process (≤ {@link STDERR_TAIL_BYTES}). */
  stderr: () => string;
  /** False once the transport closed (the next {@link connectMcpServer} starts a new one). */
  alive: () => boolean;
  /** How the stdio process ended, or null while it runs (and for http). */
  exit: () => McpProcessExit | null;
}

interface Live extends McpConnection {
  client: Client;
  transport: Transport;
  closed: boolean;
}

interface Pool {
  byKey: Map<string, Promise<Live>>;
  pids: Set<number>;
  hooked: boolean;
}

/** One pool per process (kept on globalThis so Next's module reloads in dev share it). */
function pool(): Pool {
  const g = globalThis as { __longhaulMcpPool?: Pool };
  g.__longhaulMcpPool ??= { byKey: new Map(), pids: new Set(), hooked: false };
  const p = g.__longhaulMcpPool;
  if (!p.hooked) {
    p.hooked = true;
    // Synchronous last resort: whatever ends the process, no stdio server outlives it.
    process.once("exit", () => {
      for (const pid of p.pids) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    });
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => onStopSignal(signal));
  }
  return p;
}

/**
 * SIGTERM / SIGINT of the process that owns the clients: close every server gracefully (the SDK
 * ends a stdio child's stdin, then SIGTERM, then SIGKILL, 2 s apart). When something else handles
 * the signal too (Next's own shutdown, the executor's), it ends the process and the `exit` hook
 * SIGKILLs whatever has not exited yet; when nothing else does, the signal is raised again once
 * the servers are closed, so the process ends as it would have without this hook.
 */
function onStopSignal(signal: "SIGTERM" | "SIGINT"): void {
  const othersHandle = process.listenerCount(signal) > 0;
  void stopAllMcpServers().finally(() => {
    if (!othersHandle) process.kill(process.pid, signal);
  });
}

/**
 * The value of one spec entry: the literal, or the named variable of Longhaul's environment.
 * @throws Error naming the variable when it is unset (a configuration error the admin must fix).
 */
export function resolveMcpValue(
  server: string,
  field: string,
  value: McpValue,
  source: Readonly<Record<string, string | undefined>> = namedVariables(),
): string {
  if ("value" in value) return value.value;
  const v = source[value.fromEnv];
  if (v === undefined) throw new Error(`MCP server "${server}": ${field} takes its value from the environment variable ${value.fromEnv}, which is not set`);
  return v;
}

function appendTail(tail: string, chunk: string): string {
  const next = tail + chunk;
  return next.length > STDERR_TAIL_BYTES ? next.slice(next.length - STDERR_TAIL_BYTES) : next;
}

function keyOf(handle: McpServerHandle): string {
  return `${handle.name}@${handle.version}`;
}

/** All of a server's tools (`tools/list`, every page), validated; a tool that does not parse is left out. */
async function listAllTools(client: Client, timeoutMs: number): Promise<DiscoveredTool[]> {
  const out: DiscoveredTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const res = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
    for (const tool of res.tools) {
      const parsed = discoveredToolSchema.safeParse(tool);
      if (parsed.success) out.push(parsed.data);
    }
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return out;
}

async function start(handle: McpServerHandle, hooks: McpLifecycleHooks): Promise<Live> {
  const { spec, name } = handle;
  const timeout = spec.startTimeoutMs;
  let stderr = "";
  let transport: Transport;
  let stdio: LonghaulStdioTransport | null = null;
  try {
    if (spec.transport.type === "stdio") {
      const t = spec.transport;
      const env: Record<string, string> = { ...getDefaultEnvironment() };
      for (const [k, v] of Object.entries(t.env)) env[k] = resolveMcpValue(name, `env.${k}`, v);
      stdio = new LonghaulStdioTransport({ command: t.command, args: t.args, env, ...(t.cwd ? { cwd: t.cwd } : {}) });
      stdio.stderr.on("data", (chunk: Buffer) => {
        stderr = appendTail(stderr, chunk.toString("utf8"));
      });
      transport = stdio;
    } else {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(spec.transport.headers)) headers[k] = resolveMcpValue(name, `headers.${k}`, v);
      transport = new StreamableHTTPClientTransport(new URL(spec.transport.url), { requestInit: { headers } });
    }
  } catch (error) {
    throw new McpServerStartError(name, error instanceof Error ? error.message : String(error), "", { cause: error });
  }
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const closedEarly = { reason: null as string | null };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeout);
  // A process that exits during `initialize` closes the transport: the SDK's pending request then
  // fails with "Connection closed"; give stderr a moment to drain so the error quotes it. Set before
  // `connect`, which chains it: replacing the SDK's own handler afterwards would leave pending
  // requests (and `client.onclose`) waiting forever when the server dies.
  transport.onclose = () => {
    closedEarly.reason = "the server closed the connection";
  };
  try {
    const connected = (async () => {
      await client.connect(transport, { timeout, signal: deadline.signal });
      return listAllTools(client, timeout);
    })();
    const tools = await connected;
    clearTimeout(timer);
    const pid = stdio?.pid ?? null;
    if (pid) pool().pids.add(pid);
    const version = client.getServerVersion();
    const live: Live = {
      name,
      version: handle.version,
      pid,
      serverInfo: version ? { name: version.name, version: version.version } : null,
      tools,
      startedAt: new Date(),
      stderr: () => stderr,
      alive: () => !live.closed,
      exit: () => stdio?.exit ?? null,
      client,
      transport,
      closed: false,
    };
    client.onclose = () => {
      live.closed = true;
      if (pid) pool().pids.delete(pid);
    };
    if (stdio) {
      const reportExit = (exit: McpProcessExit) => {
        live.closed = true;
        if (exit.expected) return;
        console.warn(
          `[mcp] server "${name}" v${handle.version} (pid ${exit.pid ?? "?"}) exited unexpectedly (${exitWords(exit)}); the next call starts it again${stderr.trim() ? `; its stderr: ${stderr.trim().slice(-500)}` : ""}`,
        );
        void Promise.resolve()
          .then(() => hooks.onExit?.({ ...exit, server: name, version: handle.version, stderr }))
          .catch(() => {});
      };
      if (stdio.exit) reportExit(stdio.exit);
      else stdio.onexit = reportExit;
    }
    await Promise.resolve()
      .then(() => hooks.onStart?.(live))
      .catch(() => {});
    return live;
  } catch (error) {
    clearTimeout(timer);
    await new Promise((r) => setTimeout(r, 50));
    await client.close().catch(() => {});
    if (stdio?.pid) pool().pids.delete(stdio.pid);
    const message = deadline.signal.aborted
      ? `no answer to initialize and tools/list within ${timeout} ms (startTimeoutMs)`
      : `${error instanceof Error ? error.message : String(error)}${closedEarly.reason ? ` (${closedEarly.reason})` : ""}`;
    throw new McpServerStartError(name, message, stderr, { cause: error });
  }
}

/**
 * The live connection to `handle` (started now when there is none, or the last one closed).
 * Concurrent callers share one start. @throws McpServerStartError with the reason and stderr.
 */
export async function connectMcpServer(handle: McpServerHandle, hooks: McpLifecycleHooks = {}): Promise<McpConnection> {
  return liveConnection(handle, hooks);
}

async function liveConnection(handle: McpServerHandle, hooks: McpLifecycleHooks): Promise<Live> {
  const p = pool();
  const key = keyOf(handle);
  const existing = p.byKey.get(key);
  if (existing) {
    const live = await existing.catch(() => null);
    if (live && !live.closed) return live;
    if (p.byKey.get(key) === existing) p.byKey.delete(key);
    return liveConnection(handle, hooks);
  }
  // An older version of the same server is no longer offered to anything new: stop it.
  for (const [k, promise] of p.byKey) {
    if (k.startsWith(`${handle.name}@`) && k !== key) {
      p.byKey.delete(k);
      void promise.then((l) => l.client.close()).catch(() => {});
    }
  }
  const started = start(handle, hooks);
  p.byKey.set(key, started);
  started.catch(() => {
    if (p.byKey.get(key) === started) p.byKey.delete(key);
  });
  return started;
}

/** Progress of a running call, as the server reports it (`notifications/progress`). */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Calls tool `tool` of server `handle` with `args`, `_meta` merged into the request's `_meta` (the
 * idempotency key travels there). Starts the server when needed.
 * @throws McpServerStartError (it could not start: nothing was sent), McpConnectionLostError (the
 *   connection closed with the call in flight: outcome unknown), McpCallTimeoutError (no answer
 *   within callTimeoutMs: outcome unknown); protocol errors (`McpError`, e.g. unknown tool, invalid
 *   params) as the SDK raises them.
 */
export async function callMcpTool({
  handle,
  tool,
  args,
  meta,
  onProgress,
  hooks = {},
}: {
  handle: McpServerHandle;
  tool: string;
  args: Record<string, unknown>;
  meta?: Record<string, unknown>;
  onProgress?: (progress: McpProgress) => void;
  /** Given to a start this call makes (see {@link connectMcpServer}). */
  hooks?: McpLifecycleHooks;
}): Promise<{ result: CallToolResult; connection: McpConnection }> {
  const live = await liveConnection(handle, hooks);
  const timeout = handle.spec.callTimeoutMs;
  try {
    const result = (await live.client.callTool({ name: tool, arguments: args, ...(meta ? { _meta: meta } : {}) }, CallToolResultSchema, {
      timeout,
      ...(onProgress ? { onprogress: (p: McpProgress) => onProgress(p), resetTimeoutOnProgress: false } : {}),
    })) as CallToolResult;
    return { result, connection: live };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    // SDK ErrorCode.RequestTimeout = -32001, ErrorCode.ConnectionClosed = -32000.
    if (code === -32001) throw new McpCallTimeoutError(handle.name, timeout, { cause: error });
    if (code === -32000 || live.closed) {
      const stderr = live.stderr().trim();
      const exit = live.exit();
      const what = exit ? `exited (${exitWords(exit)}, pid ${exit.pid ?? "?"})` : `closed the connection (${message})`;
      throw new McpConnectionLostError(
        handle.name,
        `MCP server "${handle.name}" ${what} during ${tool}${stderr ? `; its stderr: ${stderr.slice(-1000)}` : ""}`,
        {
          cause: error,
          exit,
        },
      );
    }
    throw error;
  }
}

/** The live connections of this process: name, version, pid, tools, alive (for health and tests). */
export async function liveMcpConnections(): Promise<McpConnection[]> {
  const all = await Promise.all([...pool().byKey.values()].map((p) => p.catch(() => null)));
  return all.filter((l): l is Live => l !== null && !l.closed);
}

/** Stops server `name`'s connections in this process (all versions); the next call starts it again. */
export async function stopMcpServer(name: string): Promise<void> {
  const p = pool();
  const stopping: Promise<unknown>[] = [];
  for (const [k, promise] of p.byKey) {
    if (!k.startsWith(`${name}@`)) continue;
    p.byKey.delete(k);
    stopping.push(promise.then((l) => l.client.close()).catch(() => {}));
  }
  await Promise.all(stopping);
}

/** Stops every MCP server this process started (SIGTERM through the SDK, then SIGKILL for any left). */
export async function stopAllMcpServers(): Promise<void> {
  const p = pool();
  const all = [...p.byKey.values()];
  p.byKey.clear();
  await Promise.all(all.map((promise) => promise.then((l) => l.client.close()).catch(() => {})));
  for (const pid of p.pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  p.pids.clear();
}

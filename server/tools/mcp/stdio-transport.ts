import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { PassThrough } from "node:stream";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { JsonLineReader, type CutReport } from "./json-line-reader.ts";
import { isJsonObject } from "../../db/json-codec.ts";

/**
 * The stdio side of an MCP connection (specification 2025-06-18, "Transports → stdio"), implementing
 * the SDK's `Transport` so the SDK's `Client` speaks the protocol over it. It replaces the SDK's
 * StdioClientTransport for two things that one does not do:
 *
 * 1. **The process's exit is the end of the connection, at once.** The SDK waits for the child's
 *    `close` event, which comes only when every holder of its stdout has let go: a server started
 *    through a launcher (`npx`, a shell script) leaves the real server behind as a grandchild that
 *    keeps the pipe open, so a kill of the registered process went unnoticed until the call timed
 *    out. Here the server runs in its own process group; when the process we started exits, the
 *    rest of its group is killed (no orphan goes on working unseen), stdout is read to its end (a
 *    last answer written before the exit is still delivered), and the connection closes with the
 *    exit's code or signal ({@link McpProcessExit}).
 * 2. **A message of any size is read with bounded memory** (server/tools/mcp/json-line-reader.ts):
 *    past {@link MCP_MESSAGE_MAX_BYTES} its long strings are cut while it is read, and the result
 *    carries {@link MCP_CUT_META_KEY} in its `_meta` saying so; the SDK's reader instead closed the
 *    connection at 10 MiB, so a big result looked like a crash and was retried.
 */

/** Largest JSON-RPC message kept whole (UTF-8 bytes of one line); a longer one is read with its strings cut. */
export const MCP_MESSAGE_MAX_BYTES = 32 * 1024 * 1024;
/** Bytes kept of each string of a message longer than {@link MCP_MESSAGE_MAX_BYTES} (the transcript keeps 64 KiB of a result's text). */
export const MCP_CUT_STRING_BYTES = 256 * 1024;
/** `_meta` key of a result that was cut while it was read: a {@link CutReport}. */
export const MCP_CUT_META_KEY = "longhaul/cutOnRead";
/** How long stdout may stay open after the process exited (a descendant that left the group still holds it) before the connection is closed anyway. */
const DRAIN_AFTER_EXIT_MS = 1000;
/** Graceful close: how long to wait after ending stdin, then after SIGTERM (as the SDK's transport does). */
const CLOSE_STEP_MS = 2000;

/** How the server process ended. */
export interface McpProcessExit {
  pid: number | null;
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  /** The signal that ended it (e.g. "SIGKILL"), or null. */
  signal: string | null;
  at: Date;
  /** True when Longhaul closed it (close(), a stop, a new version); false for a crash or a kill from outside. */
  expected: boolean;
}

/** What to start: as StdioServerParameters of the SDK. */
export interface StdioServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** Words for an exit: "exit code 3", "signal SIGKILL". */
export function exitWords(exit: Pick<McpProcessExit, "code" | "signal">): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code ?? "unknown"}`;
}

export class LonghaulStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Called once when the process exits (before `onclose`). */
  onexit?: (exit: McpProcessExit) => void;
  /** The server's stderr (piped; read it before `start`, so nothing early is lost). */
  readonly stderr = new PassThrough();

  private readonly launch: StdioServerLaunch;
  private readonly reader: JsonLineReader;
  private child: ChildProcessWithoutNullStreams | null = null;
  private closing = false;
  private closed = false;
  private exitInfo: McpProcessExit | null = null;
  private stdoutEnded = false;
  private drainTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(launch: StdioServerLaunch, limits: { maxMessageBytes?: number; cutStringBytes?: number } = {}) {
    this.launch = launch;
    this.reader = new JsonLineReader({
      maxMessageBytes: limits.maxMessageBytes ?? MCP_MESSAGE_MAX_BYTES,
      keepStringBytes: limits.cutStringBytes ?? MCP_CUT_STRING_BYTES,
    });
  }

  /** Pid of the server process (null before start or when the spawn failed). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** How the process ended, or null while it runs. */
  get exit(): McpProcessExit | null {
    return this.exitInfo;
  }

  /** Spawns the server (its own process group on POSIX). Resolves once spawned; rejects when it cannot be (ENOENT, EACCES). */
  start(): Promise<void> {
    if (this.child) throw new Error("LonghaulStdioTransport already started");
    return new Promise((resolve, reject) => {
      const child: ChildProcessWithoutNullStreams = spawn(this.launch.command, this.launch.args, {
        env: this.launch.env as NodeJS.ProcessEnv,
        ...(this.launch.cwd ? { cwd: this.launch.cwd } : {}),
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        detached: process.platform !== "win32",
        windowsHide: true,
      });
      this.child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
        this.finish();
      });
      child.once("spawn", () => resolve());
      child.once("exit", (code, signal) => this.exited(code, signal));
      child.stdin.on("error", (error) => this.onerror?.(error));
      child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
      child.stdout.once("close", () => {
        this.stdoutEnded = true;
        if (this.exitInfo) this.finish();
      });
      child.stdout.on("error", (error) => this.onerror?.(error));
      child.stderr.pipe(this.stderr);
    });
  }

  private read(chunk: Buffer): void {
    for (const item of this.reader.push(chunk)) {
      if (item.kind === "invalid") {
        this.onerror?.(new Error(`MCP server sent a line that is not a JSON-RPC message: ${item.error.message}`));
        continue;
      }
      if (item.kind === "oversize") {
        // Its content could not be kept even cut: answer the request it answered, so the call does not wait for its timeout.
        if (item.line.id === null) {
          this.onerror?.(new Error(`MCP server sent a message of ${item.line.totalBytes} bytes that could not be read`));
          continue;
        }
        const cut: CutReport = { totalBytes: item.line.totalBytes, stringsCut: 0, bytesDropped: item.line.totalBytes };
        this.deliver({
          jsonrpc: "2.0",
          id: item.line.id,
          result: {
            content: [{ type: "text", text: `[The server's answer of ${item.line.totalBytes} bytes was too large to read; nothing of it was kept.]` }],
            _meta: { [MCP_CUT_META_KEY]: cut },
          },
        });
        continue;
      }
      let message = item.message;
      if (item.cut && message && typeof message === "object" && "result" in message) {
        const result = message.result;
        if (isJsonObject(result)) {
          // An untrusted message, checked against the JSON-RPC schema on delivery: a `_meta` that is not an object is replaced.
          const meta = isJsonObject(result._meta) ? result._meta : {};
          message = { ...message, result: { ...result, _meta: { ...meta, [MCP_CUT_META_KEY]: item.cut } } };
        }
      }
      this.deliver(message);
    }
  }

  private deliver(message: unknown): void {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) {
      this.onerror?.(new Error(`MCP server sent an invalid JSON-RPC message: ${parsed.error.issues[0]?.message ?? "invalid"}`));
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.exitInfo = { pid: this.child?.pid ?? null, code, signal, at: new Date(), expected: this.closing };
    // Whatever the server left running in its group goes with it (it could hold the pipe open, or go on working unseen).
    this.killGroup("SIGKILL");
    this.onexit?.(this.exitInfo);
    if (this.stdoutEnded) this.finish();
    // A descendant that left the group may still hold stdout: close anyway after a moment to drain.
    else this.drainTimer = setTimeout(() => this.finish(), DRAIN_AFTER_EXIT_MS);
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      if (process.platform === "win32") this.child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // the group is gone already
    }
  }

  /** The connection is over: once. */
  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.reader.clear();
    this.child?.stdout.destroy();
    this.onclose?.();
  }

  /** Sends one message (a line of JSON). Rejects when the process is gone. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || this.exitInfo || !stdin.writable) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /**
   * Stops the server as the SDK's transport does: end its stdin, then SIGTERM, then SIGKILL, each
   * after {@link CLOSE_STEP_MS} — to its whole process group. Resolves once it exited (or was killed).
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return this.finish();
    this.closing = true;
    const exited = new Promise<void>((resolve) => {
      if (this.exitInfo) resolve();
      else child.once("exit", () => resolve());
    });
    const wait = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    try {
      child.stdin.end();
    } catch {
      // ignore
    }
    if (!(await wait(CLOSE_STEP_MS))) {
      this.killGroup("SIGTERM");
      if (!(await wait(CLOSE_STEP_MS))) this.killGroup("SIGKILL");
    }
    this.finish();
  }
}

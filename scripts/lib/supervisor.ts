import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** URL that answers 2xx/3xx/4xx once the child is ready. */
  readyUrl?: string;
}

export interface Supervised {
  name: string;
  child: () => ChildProcess | undefined;
  restarts: () => number;
}

/**
 * Starts children in their own process groups and restarts any that exit unexpectedly (after 1 s,
 * logging the exit code and the restart). `stopAll` sends SIGTERM to each group, then SIGKILL
 * after `graceMs`.
 */
export class Supervisor {
  private readonly children = new Map<string, { spec: ChildSpec; proc?: ChildProcess; restarts: number }>();
  private stopping = false;
  constructor(private readonly log: (line: string) => void) {}

  start(spec: ChildSpec): void {
    const entry = { spec, proc: undefined as ChildProcess | undefined, restarts: 0 };
    this.children.set(spec.name, entry);
    this.launch(entry);
  }

  private launch(entry: { spec: ChildSpec; proc?: ChildProcess; restarts: number }): void {
    const { spec } = entry;
    const proc = spawn(spec.command, spec.args, {
      // Empty values mean unset (server/env.ts does the same).
      env: Object.fromEntries(Object.entries({ ...process.env, ...spec.env }).filter(([, v]) => v !== undefined && v !== "")) as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    entry.proc = proc;
    const prefix = `[${spec.name}] `;
    const pipe = (stream: NodeJS.ReadableStream | null) => {
      let buf = "";
      stream?.on("data", (chunk: Buffer) => {
        buf += chunk.toString();
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          this.log(prefix + buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      });
    };
    pipe(proc.stdout);
    pipe(proc.stderr);
    proc.on("exit", (code, signal) => {
      if (this.stopping || entry.proc !== proc) return;
      entry.restarts += 1;
      this.log(`[supervisor] ${spec.name} exited (${signal ?? `code ${code}`}); restart #${entry.restarts} in 1 s`);
      setTimeout(() => {
        if (!this.stopping) this.launch(entry);
      }, 1_000).unref();
    });
  }

  /** The live process of `name` (for tests and the chaos script). */
  process(name: string): ChildProcess | undefined {
    return this.children.get(name)?.proc;
  }

  restarts(name: string): number {
    return this.children.get(name)?.restarts ?? 0;
  }

  /** Sends `signal` to the whole process group of `name` (the supervisor then restarts it). */
  kill(name: string, signal: NodeJS.Signals = "SIGKILL"): void {
    const pid = this.children.get(name)?.proc?.pid;
    if (pid) killGroup(pid, signal);
  }

  /**
   * Stops the children: those named in `order` one after the other (the executor first, so nothing
   * drives steps into a web app or model that is going away), then the rest together. Each gets
   * SIGTERM, then SIGKILL after `graceMs`.
   */
  async stopAll(graceMs = 5_000, order: string[] = []): Promise<void> {
    this.stopping = true;
    const live = (name: string) => {
      const p = this.children.get(name)?.proc;
      return p && p.exitCode === null && p.signalCode === null ? p : undefined;
    };
    const stopOne = async (p: ChildProcess) => {
      const exited = once(p, "exit");
      killGroup(p.pid!, "SIGTERM");
      const timer = setTimeout(() => killGroup(p.pid!, "SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
      killGroup(p.pid!, "SIGKILL"); // stragglers in the group
    };
    for (const name of order) {
      const p = live(name);
      if (p) await stopOne(p);
    }
    await Promise.all(
      [...this.children.keys()]
        .filter((name) => !order.includes(name))
        .map((name) => live(name))
        .filter((p): p is ChildProcess => !!p)
        .map(stopOne),
    );
  }
}

/** True when process `pid` exists (signal 0 probes without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Resolves when nothing listens on 127.0.0.1:`port`; rejects with a clear message otherwise. */
export async function assertPortFree(port: number, variable: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const srv = createServer();
    srv.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          err.code === "EADDRINUSE"
            ? `Port ${port} is busy (${variable}). Stop what uses it (e.g. \`lsof -i :${port}\`) or set ${variable}=<another port>.`
            : `Cannot listen on port ${port} (${variable}): ${err.message}`,
        ),
      ),
    );
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve()));
  });
}

/** Polls `url` until it answers (any HTTP status below 500) or `timeoutMs` passes. */
export async function waitForUrl(url: string, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = "";
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`process for ${url} exited while starting`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.status < 500) return;
      lastError = `HTTP ${res.status}`;
    } catch (error) {
      lastError = String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${lastError})`);
}

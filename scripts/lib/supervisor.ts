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
  /** Liveness probe: the child is restarted when it is alive but stops answering (see {@link LivenessProbe}). */
  liveness?: LivenessProbe;
}

/**
 * How a child is checked for being alive but not answering: `GET url` every `intervalMs`; an HTTP
 * answer of any status within `timeoutMs` is an answer (a 503 "database down" included: the child
 * works and says what is wrong); no answer in time, or a refused or reset connection, is a miss.
 * After `misses` misses in a row the child's process group is killed (SIGKILL) and the usual restart
 * follows. Misses count only once the child has answered since it was (re)started: a child still
 * booting is not hung. Defaults ({@link LIVENESS_DEFAULTS}): Kubernetes' liveness probe defaults
 * (period 10 s, failure threshold 3), with a 5 s timeout instead of its 1 s, since a Node server on a
 * busy shared CPU can pause for seconds without being hung.
 */
export interface LivenessProbe {
  url: string;
  /** Shown in the log line, e.g. "/api/health/live". */
  label?: string;
  intervalMs?: number;
  timeoutMs?: number;
  misses?: number;
}

/** See {@link LivenessProbe}. */
export const LIVENESS_DEFAULTS = { intervalMs: 10_000, timeoutMs: 5_000, misses: 3 } as const;

/** One probe: resolves true when `url` answered with any HTTP status within `timeoutMs`. */
export async function answers(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), cache: "no-store" });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** What the liveness probe of a child's current process has seen. */
export interface LivenessState {
  /** Probes made (answered or not). */
  probes: number;
  /** Whether the process has answered at least once (misses count from then on). */
  answered: boolean;
  /** Misses in a row now. */
  missed: number;
}

type Entry = { spec: ChildSpec; proc?: ChildProcess; restarts: number; probe?: NodeJS.Timeout; liveness?: LivenessState };

export interface Supervised {
  name: string;
  child: () => ChildProcess | undefined;
  restarts: () => number;
}

/**
 * Starts children in their own process groups and restarts any that exit unexpectedly (after 1 s,
 * logging the exit code and the restart), or that stay alive but stop answering their liveness
 * probe ({@link LivenessProbe}: killed, then restarted the same way, with a log line saying why).
 * `stopAll` sends SIGTERM to each group, then SIGKILL after `graceMs`.
 */
export class Supervisor {
  private readonly children = new Map<string, Entry>();
  private stopping = false;
  constructor(private readonly log: (line: string) => void) {}

  start(spec: ChildSpec): void {
    const entry = { spec, proc: undefined as ChildProcess | undefined, restarts: 0 };
    this.children.set(spec.name, entry);
    this.launch(entry);
  }

  private launch(entry: Entry): void {
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
    this.watch(entry, proc);
    proc.on("exit", (code, signal) => {
      clearTimeout(entry.probe);
      if (this.stopping || entry.proc !== proc) return;
      entry.restarts += 1;
      this.log(`[supervisor] ${spec.name} exited (${signal ?? `code ${code}`}); restart #${entry.restarts} in 1 s`);
      setTimeout(() => {
        if (!this.stopping) this.launch(entry);
      }, 1_000).unref();
    });
  }

  /**
   * Probes `proc` (the child's current process) while it lives, per its spec's liveness probe.
   * Probes run one after the other (the next `intervalMs` after the last answered or timed out).
   */
  private watch(entry: Entry, proc: ChildProcess): void {
    const probe = entry.spec.liveness;
    if (!probe) return;
    const { intervalMs, timeoutMs, misses } = { ...LIVENESS_DEFAULTS, ...probe };
    const state: LivenessState = { probes: 0, answered: false, missed: 0 };
    entry.liveness = state;
    const tick = async () => {
      if (this.stopping || entry.proc !== proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const ok = await answers(probe.url, timeoutMs);
      if (this.stopping || entry.proc !== proc || proc.exitCode !== null || proc.signalCode !== null) return;
      state.probes += 1;
      if (ok) {
        if (state.missed > 0)
          this.log(`[supervisor] ${entry.spec.name} answers ${probe.label ?? probe.url} again (after ${state.missed} miss${state.missed === 1 ? "" : "es"})`);
        state.answered = true;
        state.missed = 0;
      } else if (state.answered) {
        state.missed += 1;
        if (state.missed >= misses) {
          this.log(
            `[supervisor] ${entry.spec.name} did not answer ${probe.label ?? probe.url} ${misses} times in a row within ${timeoutMs / 1000} s; restarting it (pid ${proc.pid})`,
          );
          killGroup(proc.pid!, "SIGKILL"); // the exit handler restarts it
          return;
        }
      }
      entry.probe = setTimeout(() => void tick(), intervalMs);
      entry.probe.unref();
    };
    entry.probe = setTimeout(() => void tick(), intervalMs);
    entry.probe.unref();
  }

  /** The live process of `name` (for tests and the chaos script). */
  process(name: string): ChildProcess | undefined {
    return this.children.get(name)?.proc;
  }

  /** What the liveness probe of `name`'s current process has seen (undefined without a probe). */
  liveness(name: string): LivenessState | undefined {
    const s = this.children.get(name)?.liveness;
    return s && { ...s };
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
    for (const entry of this.children.values()) clearTimeout(entry.probe);
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

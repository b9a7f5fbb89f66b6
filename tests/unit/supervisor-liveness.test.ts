import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Supervisor, type ChildSpec } from "../../scripts/lib/supervisor.ts";
import { waitFor } from "../support/executor-harness.ts";
import { freePort } from "../support/ports.ts";

// npm start's supervisor (scripts/lib/supervisor.ts) with real child processes
// (tests/fixtures/liveness-child.ts, a small HTTP server) and a fast liveness probe: a child that is
// alive but stopped (SIGSTOP) is restarted with a log line saying why; one that answers 503 (a
// database outage, as /api/health says it) is left alone; one still booting is not counted as hung.

const CHILD = resolve(import.meta.dirname, "../fixtures/liveness-child.ts");
const PROBE = { intervalMs: 100, timeoutMs: 300, misses: 3 };

let supervisor: Supervisor | undefined;
afterEach(async () => {
  await supervisor?.stopAll(2_000);
  supervisor = undefined;
});

async function supervise(env: Record<string, string>): Promise<{ lines: string[]; port: number }> {
  const lines: string[] = [];
  const port = await freePort();
  supervisor = new Supervisor((line) => lines.push(line));
  const spec: ChildSpec = {
    name: "web",
    command: process.execPath,
    args: [CHILD],
    env: { LIVE_PORT: String(port), ...env },
    liveness: { url: `http://127.0.0.1:${port}/api/health/live`, label: "/api/health/live", ...PROBE },
  };
  supervisor.start(spec);
  return { lines, port };
}

describe("Supervisor liveness", () => {
  it("restarts a child that is alive but does not answer (SIGSTOP), saying so", async () => {
    const { lines } = await supervise({});
    const s = supervisor!;
    await waitFor("the child to answer its probe", () => s.liveness("web")?.answered);
    const stopped = s.process("web")!;
    process.kill(stopped.pid!, "SIGSTOP");

    await waitFor("a restart", () => s.restarts("web") === 1);
    expect(lines).toContain(`[supervisor] web did not answer /api/health/live 3 times in a row within 0.3 s; restarting it (pid ${stopped.pid})`);
    expect(lines.some((l) => /^\[supervisor\] web exited \(SIGKILL\); restart #1 in 1 s$/.test(l))).toBe(true);
    // The new process answers; the stopped one is gone.
    await waitFor("the new child to answer", () => s.process("web")!.pid !== stopped.pid && s.liveness("web")?.answered);
    expect(stopped.signalCode).toBe("SIGKILL");
  }, 60_000);

  it("leaves a child that answers 503 (database down) alone: an answer is not a hang", async () => {
    const { lines } = await supervise({ LIVE_STATUS: "503" });
    const s = supervisor!;
    const first = await waitFor("the child's first answer (503)", () => s.liveness("web")?.answered && s.liveness("web")!.probes);
    // Ten more probes: three misses in a row would have restarted it more than twice over.
    await waitFor("ten more probes", () => s.liveness("web")!.probes >= first + 10);
    expect(s.liveness("web")).toMatchObject({ answered: true, missed: 0 });
    expect(s.restarts("web")).toBe(0);
    expect(lines.filter((l) => l.startsWith("[supervisor]"))).toEqual([]);
  }, 60_000);

  it("does not count a child that has not answered yet (still booting) as hung", async () => {
    const { lines } = await supervise({ LIVE_LISTEN_ON_SIGNAL: "1" });
    const s = supervisor!;
    const booting = s.process("web")!;
    await waitFor("the child to be booting", () => lines.includes("[web] booting"));
    const first = s.liveness("web")?.probes ?? 0;
    await waitFor("ten probes without an answer", () => (s.liveness("web")?.probes ?? 0) >= first + 10);
    expect(s.liveness("web")).toMatchObject({ answered: false, missed: 0 });
    expect(s.restarts("web")).toBe(0);
    booting.kill("SIGUSR2"); // done booting: it listens
    await waitFor("the child to answer", () => s.liveness("web")?.answered);
    expect(s.process("web")!.pid).toBe(booting.pid);
  }, 60_000);
});

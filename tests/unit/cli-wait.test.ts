import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import superjson from "superjson";
import { afterEach, describe, expect, it } from "vitest";
import type { EvalProfileReport } from "../../server/domain/eval-report.ts";
import { freePort } from "../support/ports.ts";
import { childNodeArgs } from "../support/child-bundles.ts";

// The real CLI against a stand-in for the web app's API that goes away mid-wait (a restart: the port
// refuses connections), then answers 503 "the database is unavailable" (the app is back, its database
// not yet), then comes back on the same port: a waiting command rides it out and still gives its verdict.

/** Polls `check` every `everyMs` until it holds; throws naming `what` after `timeoutMs`. */
async function waitFor(what: string, check: () => boolean, timeoutMs: number, everyMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

type Answer = (procedure: string) => { status: number; body: unknown };

/** A stand-in API on a fixed port that can be stopped and started again, counting requests per procedure. */
function restartableApi(port: number) {
  let server: Server | null = null;
  const seen: Record<string, number> = {};
  let answer: Answer = () => ({ status: 200, body: null });
  return {
    seen,
    set(next: Answer) {
      answer = next;
    },
    async start() {
      server = createServer((req, res) => {
        const names = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/trpc\//, "")).split(",");
        const replies = names.map((n) => {
          seen[n] = (seen[n] ?? 0) + 1;
          return answer(n);
        });
        const status = Math.max(...replies.map((r) => r.status));
        res.writeHead(status, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            replies.map((r) =>
              r.status === 200
                ? { result: { data: superjson.serialize(r.body) } }
                : { error: superjson.serialize({ message: String(r.body), code: -32603, data: { code: "SERVICE_UNAVAILABLE", httpStatus: r.status } }) },
            ),
          ),
        );
      });
      await new Promise<void>((r) => server!.listen(port, "127.0.0.1", r));
    },
    async stop() {
      if (!server) return;
      const s = server;
      server = null;
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    },
  };
}

/** Starts the CLI without waiting for it; its output so far and its end can be watched. */
function startCli(url: string, args: string[]) {
  const child = spawn(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
    env: { ...process.env, LONGHAUL_URL: url, LONGHAUL_TOKEN: "lh_unused", LONGHAUL_CLI_TIMEOUT: "5" },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const done = new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status)));
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

const profile = (passRate: number | null): EvalProfileReport => ({
  profile: "scripted",
  cells: 2,
  ended: passRate === null ? 0 : 2,
  passed: passRate === null ? 0 : 2,
  notJudged: 0,
  judged: passRate === null ? 0 : 2,
  passRate,
  passRateLow: null,
  passRateHigh: null,
  completionRate: null,
  passHatK: null,
  stepsP50: null,
  stepsP90: null,
  tokens: 0,
  costPerPassUsd: null,
  costPerCompletedUsd: null,
  costUsd: 0,
  judgeCostUsd: 0,
  wasteShare: null,
  escalationsPerTask: null,
  durationP50Ms: null,
  durationP90Ms: null,
  failureClasses: {},
});

const report = (status: "running" | "completed") => ({
  evalRunId: "evalrun_1",
  suite: "s",
  status,
  cells: [],
  report: [profile(status === "completed" ? 1 : null)],
  diff: null,
  budgets: [],
});

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  await cleanup?.();
  cleanup = null;
});

describe("a waiting CLI command rides out a restart of the web app", () => {
  it("eval run --wait keeps waiting through refused connections and 503s, then gives the gate's verdict", async () => {
    const port = await freePort();
    const api = restartableApi(port);
    api.set((n) => ({ status: 200, body: n === "eval.start" ? { evalRunId: "evalrun_1", cells: 2 } : report("running") }));
    await api.start();
    const cli = startCli(`http://127.0.0.1:${port}`, ["eval", "run", "s", "--profiles", "scripted", "--wait", "--min-pass-rate", "0.9"]);
    cleanup = async () => {
      cli.child.kill("SIGKILL");
      await api.stop();
    };

    await waitFor("the CLI to poll the report", () => (api.seen["eval.report"] ?? 0) > 0, 60_000, 50);
    await api.stop(); // the web app restarts: nothing listens
    await waitFor("the CLI to notice", () => cli.stderr().includes("cannot reach Longhaul"), 60_000, 50);
    expect(cli.child.exitCode).toBeNull();

    // The app is back, its database not yet: 503 "the database is unavailable".
    api.set(() => ({ status: 503, body: "The database is unavailable (P1001): try again in a few seconds" }));
    await api.start();
    const before = api.seen["eval.report"] ?? 0;
    await waitFor("the CLI to ask the restarting app", () => (api.seen["eval.report"] ?? 0) > before, 60_000, 50);
    expect(cli.child.exitCode).toBeNull();

    // Everything answers again, and the eval run has ended meanwhile.
    api.set(() => ({ status: 200, body: report("completed") }));
    expect(await cli.done, cli.stderr()).toBe(0);
    expect(cli.stderr()).toContain("the eval run goes on — retrying for up to 120 s");
    expect(cli.stderr()).toMatch(/Longhaul answers again after \d+ s/);
    const out = JSON.parse(cli.stdout().trim().split("\n").at(-1)!) as { status: string; gates: { failed: string[] } };
    expect(out).toMatchObject({ status: "completed", gates: { failed: [] } });
  }, 120_000);

  it("a batch's --wait rides out the same way", async () => {
    const port = await freePort();
    const api = restartableApi(port);
    let finished = false;
    const counts = (done: number) => ({ pending: 2 - done, running: 0, done, skipped: 0, failed: 0 });
    api.set((n) => ({
      status: 200,
      body:
        n === "task.batchStart"
          ? { batchId: "batch_1", taskIds: ["t1", "t2"], matched: 2, skipped: [], estimatedUsd: 0, unestimated: 0, concurrency: 2 }
          : { batchId: "batch_1", total: 2, finished, counts: counts(finished ? 2 : 0), items: [] },
    }));
    await api.start();
    const cli = startCli(`http://127.0.0.1:${port}`, ["cancel", "--status", "running", "--wait"]);
    cleanup = async () => {
      cli.child.kill("SIGKILL");
      await api.stop();
    };
    await waitFor("the CLI to follow the batch", () => (api.seen["task.batch"] ?? 0) > 1, 60_000, 50);
    await api.stop();
    await waitFor("the CLI to notice", () => cli.stderr().includes("cannot reach Longhaul"), 60_000, 50);
    expect(cli.child.exitCode).toBeNull();
    finished = true;
    await api.start();
    expect(await cli.done, cli.stderr()).toBe(0);
    const out = JSON.parse(cli.stdout().trim().split("\n").at(-1)!) as { finished: boolean; counts: { done: number } };
    expect(out).toMatchObject({ finished: true, counts: { done: 2 } });
  }, 120_000);
});

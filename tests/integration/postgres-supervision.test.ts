import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "../../server/db/embedded-postgres.ts";
import { applyMigrations } from "../../server/db/migrations.ts";
import { startAgentStack, waitFor, type AgentStack } from "../support/agent-stack.ts";
import { freePort } from "../support/ports.ts";

// The embedded PostgreSQL is supervised (server/db/embedded-postgres.ts `supervise`, what `npm
// start` uses): kill -9 of the postmaster in the middle of a run → it is restarted on the same data
// and port, the app and the executor (real child processes) reconnect, the run completes, and the
// summary email is sent once. The supervision log has one line for the outage and one for the
// recovery. This file has its own cluster (killing the shared test database would break the others).

const LIMIT = 12;
let pg: EmbeddedPostgresHandle;
let stack: AgentStack;
const supervision: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "longhaul-pgkill-"));
  pg = await startEmbeddedPostgres({
    dir,
    port: await freePort(),
    database: "longhaul_pgkill_test",
    ephemeral: true,
    supervise: true,
    supervisorLog: (line) => supervision.push(line),
  });
  await applyMigrations(pg.url);
  stack = await startAgentStack({ databaseUrl: pg.url });
}, 120_000);

afterAll(async () => {
  const left = stack ? await stack.stop() : [];
  await pg?.stop();
  expect(left.map((c) => `${c.name} pid ${c.child.pid}`)).toEqual([]);
});

describe("PostgreSQL killed mid-run", () => {
  it("is restarted; the app and the executor reconnect; the run completes with one email", async () => {
    const { taskId } = await stack.launchDemo({ limit: LIMIT });
    await waitFor("the run to be under way (8 steps)", async () => (await stack.db.step.count({ where: { run: { taskId } } })) >= 8, 90_000, 100);
    const before = pg.pid();
    expect(before).toBeGreaterThan(0);
    process.kill(before!, "SIGKILL");
    await waitFor("PostgreSQL to be back", () => supervision.some((l) => l.startsWith("PostgreSQL is back after")), 60_000, 100);
    expect(pg.pid()).not.toBe(before);
    expect(pg.restarts()).toBe(1);
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end", "cancelled", "waiting_for_human"], 240_000)).toBe("completed");
    expect(await stack.db.outboxMessage.count({ where: { taskId } })).toBe(1);
    // The processes rode it out: neither the app nor the executor died.
    expect({ app: stack.app()?.alive(), executor: stack.executor()?.alive() }).toEqual({ app: true, executor: true });
    // One line for the outage, at most one while it stayed down, one for the recovery.
    expect(supervision[0]).toMatch(/^PostgreSQL exited \((SIGKILL|code \d+)\); restarting it on port \d+$/);
    expect(supervision.at(-1)).toMatch(/^PostgreSQL is back after \d+ ms \(restart #1, pid \d+\)$/);
    expect(supervision.length).toBeLessThanOrEqual(3);
    // The executor's log too (engine/outage-log.ts): one line naming the error when it lost the
    // database, one when it is back, none of the per-statement noise (lease, heartbeat, HTTP API).
    const executorLog = stack.executor()?.output() ?? "";
    const outage = executorLog.split("\n").filter((l) => /PostgreSQL (unreachable|still unreachable|reachable again)/.test(l));
    expect(executorLog, executorLog.slice(-4000)).not.toMatch(/lease failed:|heartbeat for .* failed:|HTTP [A-Z]+ \/\S*: *$/m);
    expect(outage[0], executorLog.slice(-4000)).toMatch(/PostgreSQL unreachable \(.+\): \S/);
    expect(outage.at(-1)).toMatch(/PostgreSQL reachable again after \d+ ms/);
    expect(outage.length, outage.join("\n")).toBeLessThanOrEqual(3);
    // Its Unix socket is in the data folder, not the system temp folder (two clusters on one port number never collide).
    expect(existsSync(join(dir, `.s.PGSQL.${pg.port}`))).toBe(true);
  }, 360_000);
});

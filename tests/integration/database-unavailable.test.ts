import { TRPCError } from "@trpc/server";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { databaseUnavailableCode } from "../../server/db/db-errors.ts";
import { freePort } from "../support/ports.ts";
import { testPrincipal } from "../support/principals.ts";

// A database outage said plainly: while the database is down the API answers 503 naming it (not 500
// "Internal error"), and the log has one line for the cause, not a Prisma stack trace per request.
// A real Prisma client over a port nothing listens on: the error PostgreSQL's absence gives.

const dead = createPrismaClient(`postgresql://longhaul:x@127.0.0.1:${await freePort()}/longhaul`);
afterAll(() => dead.$disconnect());

describe("the database is down", () => {
  it("task.list answers SERVICE_UNAVAILABLE naming the database; two requests log one line", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const caller = createCaller({ prisma: dead, actor: "down-test", principal: testPrincipal("down-test") });
    const first = await caller.task.list({}).catch((e: unknown) => e);
    const second = await caller.task.get({ taskId: "task_x" }).catch((e: unknown) => e);
    for (const e of [first, second]) {
      expect(e).toBeInstanceOf(TRPCError);
      expect((e as TRPCError).code).toBe("SERVICE_UNAVAILABLE");
      expect((e as TRPCError).message).toBe("the database is unavailable (down or restarting): try again in a moment");
    }
    const code = databaseUnavailableCode((first as TRPCError).cause);
    expect(code).toMatch(/^(P1001|ECONNREFUSED|unreachable)$/);
    const lines = errors.mock.calls.map((c) => c.map(String).join(" "));
    errors.mockRestore();
    // One line for the cause; the second request (same cause, within the quiet time) adds none.
    expect(lines.filter((l) => l.startsWith(`[db] database unavailable (${code})`))).toEqual([
      `[db] database unavailable (${code}) — answering 503 (task.list)`,
    ]);
    expect(lines.filter((l) => l.includes("[trpc]"))).toEqual([]);
  });
});

import { TRPCError } from "@trpc/server";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_LAUNCH_FACTS_BYTES } from "../../lib/contracts/limits.ts";
import { ZodError } from "zod";
import { createCaller } from "../../server/api/root.ts";
import { testPrincipal } from "../support/principals.ts";
import { readableIssues } from "../../server/api/trpc.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { seedDefaults } from "../../server/db/seed.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A launch the executor could not run is refused at launch, over the real path (the tRPC procedure
// `task.launch` against the test database): 5 MB of facts → BAD_REQUEST naming the field and the
// limit, and nothing is stored.

const prisma = createPrismaClient(testDatabaseUrl());
/** The message a client gets for a refused input: the procedure's zod issues, one line each (server/api/trpc.ts errorFormatter). */
function clientMessage(error: unknown): string {
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe("BAD_REQUEST");
  expect((error as TRPCError).cause).toBeInstanceOf(ZodError);
  return readableIssues((error as TRPCError).cause as ZodError);
}
afterAll(() => prisma.$disconnect());

describe("task.launch size limits", () => {
  it("refuses 5 MB of facts naming facts and the limit; stores nothing", async () => {
    await seedDefaults(prisma);
    const actor = `limits-${Date.now()}`;
    const caller = createCaller({ prisma, actor, principal: testPrincipal(actor) });
    // 400 facts of ~13 KB each: every value is under the 16 KiB per-fact limit, the whole is ~5.2 MB.
    const facts = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`part:${i}`, "x".repeat(13_000)]));
    const error = await caller.task.launch({ goal: "Summarise the parts", profile: "scripted", facts }).catch((e: unknown) => e);
    expect(clientMessage(error)).toMatch(
      new RegExp(
        `^facts: at most ${MAX_LAUNCH_FACTS_BYTES} bytes of JSON in all \\(got 52\\d{5}\\): the working set travels in the executor's step outputs, limited to 4194304 bytes`,
      ),
    );
    expect(await prisma.task.count({ where: { createdBy: actor } })).toBe(0);
  });

  it("refuses one fact over 16 KiB and a goal over 20000 characters, naming each", async () => {
    const caller = createCaller({ prisma, actor: "limits-b", principal: testPrincipal("limits-b") });
    const big = await caller.task.launch({ goal: "g", facts: { report: "y".repeat(20_000) } }).catch((e: unknown) => e);
    expect(clientMessage(big)).toBe('facts: "report": at most 16384 bytes of JSON (got 20002)');
    const goal = await caller.task.launch({ goal: "g".repeat(20_001) }).catch((e: unknown) => e);
    expect(clientMessage(goal)).toBe("goal: at most 20000 characters");
  });
});

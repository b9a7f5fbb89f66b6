import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../../server/api/root.ts";
import { createTRPCRouter, publicProcedure } from "../../server/api/trpc.ts";

/**
 * Every tRPC procedure declares `.output()`: the client's types come from the contract, and a
 * server change that breaks a result's shape fails at the boundary (INTERNAL_SERVER_ERROR "Output
 * validation failed") instead of reaching the pages. tRPC 11 keeps what `.output(schema)` was given
 * on the procedure's `_def.output` (undefined without one); a router's `_def.procedures` lists every
 * procedure by its dotted path.
 */
type Procedures = Record<string, { _def: { output?: unknown } }>;

/** The dotted paths of `router`'s procedures without an output schema. */
function withoutOutput(router: { _def: { procedures: object } }): string[] {
  return Object.entries(router._def.procedures as Procedures)
    .filter(([, p]) => p._def.output === undefined)
    .map(([path]) => path);
}

const procedures = Object.entries(appRouter._def.procedures as unknown as Procedures);

describe("procedure outputs", () => {
  it("lists the router's procedures", () => {
    expect(procedures.length).toBeGreaterThan(80);
    expect(procedures.map(([path]) => path)).toContain("task.steps");
  });

  it("finds a planted procedure without .output()", () => {
    const planted = createTRPCRouter({
      ok: publicProcedure.output(z.object({ n: z.number() })).query(() => ({ n: 1 })),
      nested: createTRPCRouter({ bare: publicProcedure.query(() => ({ n: 1 })) }),
    });
    expect(withoutOutput(planted)).toEqual(["nested.bare"]);
  });

  it("every procedure declares an output schema", () => {
    const missing = withoutOutput(appRouter);
    expect(missing, `procedures without .output(): ${missing.join(", ")}`).toEqual([]);
  });

  it("each output is a zod schema that says something (not z.any() or z.unknown() for the whole result)", () => {
    const vague = procedures
      .filter(([, p]) => !(p._def.output instanceof z.ZodType) || p._def.output instanceof z.ZodAny || p._def.output instanceof z.ZodUnknown)
      .map(([path]) => path);
    expect(vague).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../../server/api/root.ts";

/**
 * Every tRPC procedure declares `.output()`: the client's types come from the contract, and a
 * server change that breaks a result's shape fails at the boundary (INTERNAL_SERVER_ERROR "Output
 * validation failed") instead of reaching the pages. tRPC 11 keeps what `.output(schema)` was given
 * on the procedure's `_def.output` (undefined without one); `appRouter._def.procedures` lists every
 * procedure by its dotted path.
 */
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { output?: unknown } }>);

describe("procedure outputs", () => {
  it("lists the router's procedures", () => {
    expect(procedures.length).toBeGreaterThan(80);
    expect(procedures.map(([path]) => path)).toContain("task.steps");
  });

  it("every procedure declares an output schema", () => {
    const missing = procedures.filter(([, p]) => p._def.output === undefined).map(([path]) => path);
    expect(missing, `procedures without .output(): ${missing.join(", ")}`).toEqual([]);
  });

  it("each output is a zod schema that says something (not z.any() or z.unknown() for the whole result)", () => {
    const vague = procedures
      .filter(([, p]) => !(p._def.output instanceof z.ZodType) || p._def.output instanceof z.ZodAny || p._def.output instanceof z.ZodUnknown)
      .map(([path]) => path);
    expect(vague).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readableIssues } from "../../server/api/trpc.ts";

describe("readableIssues", () => {
  it("one problem per issue, naming the field; our messages that already name it are kept as they are", () => {
    const schema = z.object({ goal: z.string().max(5, "goal: at most 5 characters"), demo: z.object({ limit: z.number().int() }), note: z.string() });
    const result = schema.safeParse({ goal: "x".repeat(9), demo: { limit: 1.5 }, note: 3 });
    expect(result.success).toBe(false);
    const text = readableIssues(result.error!);
    expect(text.split("; ")).toEqual(["goal: at most 5 characters", expect.stringMatching(/^demo\.limit: /), expect.stringMatching(/^note: /)]);
    expect(text).not.toContain("{");
  });
});

import { describe, expect, it } from "vitest";
import { effortErrorsOf } from "../../components/admin/profile-effort-values.ts";
import { profileSpecSchema } from "../../server/domain/profile-spec.ts";

// The profile form puts each refusal of the effort policy under the control it names: the server's
// own messages (profileSpecSchema, one problem a line) split by field.

/** The server's refusal of `effort` as the form gets it: each issue's message on its own line. */
function refusal(effort: unknown): string {
  const parsed = profileSpecSchema.safeParse({ name: "p", model: "m", effort });
  if (parsed.success) throw new Error("expected a refusal");
  return parsed.error.issues.map((i) => i.message).join("\n");
}

describe("effortErrorsOf", () => {
  it("puts a too long model under its level, a bad level under its rule or the default", () => {
    const errors = effortErrorsOf(refusal({ default: "max", rules: { planning: "huge" }, models: { low: "x".repeat(201) } }));
    expect(errors.models).toEqual({ low: "effort.models.low: at most 200 characters" });
    expect(errors.rules).toEqual({ planning: "effort.rules.planning: one of low, medium, high" });
    expect(errors.default).toBe("effort.default: one of low, medium, high");
    expect(errors.policy).toBeUndefined();
  });

  it("says what concerns the whole policy below it, and leaves other fields' lines out", () => {
    const errors = effortErrorsOf(`${refusal({ rules: { lunch: "low" } })}\nbaseUrl: must be an http(s) URL`);
    expect(errors.policy).toMatch(/^effort\.rules: unknown situation\(s\) lunch; situations: after_human/);
    expect([errors.default, errors.rules, errors.models]).toEqual([undefined, {}, {}]);
    expect(effortErrorsOf(undefined)).toEqual({ rules: {}, models: {} });
  });
});

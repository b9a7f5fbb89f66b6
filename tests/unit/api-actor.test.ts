import { describe, expect, it } from "vitest";
import { actorFrom } from "../../server/api/trpc.ts";

describe("actorFrom (who is calling)", () => {
  it("takes the x-longhaul-actor header first, then the dashboard's name cookie, else operator", () => {
    expect(actorFrom(new Headers({ "x-longhaul-actor": "cli-bot", cookie: "longhaul_actor=Ada" }))).toBe("cli-bot");
    expect(actorFrom(new Headers({ cookie: "theme=dark; longhaul_actor=Ada%20Lovelace; other=1" }))).toBe("Ada Lovelace");
    expect(actorFrom(new Headers({ cookie: "theme=dark" }))).toBe("operator");
    expect(actorFrom(new Headers())).toBe("operator");
  });

  it("cleans what it is given: control characters removed, trimmed, at most 100 characters, blank → operator", () => {
    expect(actorFrom(new Headers({ cookie: "longhaul_actor=%0A%20Bob%09%20" }))).toBe("Bob");
    expect(actorFrom(new Headers({ "x-longhaul-actor": "x".repeat(150) }))).toHaveLength(100);
    expect(actorFrom(new Headers({ cookie: "longhaul_actor=%20%20" }))).toBe("operator");
    // Not URI-encoded (a stray %): kept as written.
    expect(actorFrom(new Headers({ "x-longhaul-actor": "100% sure" }))).toBe("100% sure");
  });
});

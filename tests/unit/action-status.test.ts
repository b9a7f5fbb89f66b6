import { describe, expect, it } from "vitest";
import { clearedByEdit, doneLine, errorLine, fieldsNamed, outcomeTicket, visibleLine } from "../../components/ui/action-status.ts";

// The status line of a page's actions: a refusal in the form's words that goes when the field it
// names is edited, and only the newest line of a page stands.

describe("an action's status line", () => {
  it("says a refusal in the form's words and knows the fields it names", () => {
    const line = errorLine("email: ada@x.test already has an account", { email: "Email" });
    expect(line).toEqual({ kind: "error", text: "Email: ada@x.test already has an account", fields: ["email"] });
    expect(fieldsNamed("spec.transport.command: Invalid input: expected string, received undefined")).toEqual(["spec.transport.command"]);
    expect(fieldsNamed("name: at most 100 characters; roles[0]: must be one of a, b")).toEqual(["name", "roles.0"]);
    expect(fieldsNamed("stepBudget: at least 1\neffort.default: must be one of low, high")).toEqual(["stepBudget", "effort.default"]);
    expect(fieldsNamed("the database is unavailable (down or restarting): try again in a moment")).toEqual([]);
  });

  it("an error goes when a field it names (or a part of one) is edited; other fields leave it", () => {
    const line = errorLine("email: taken");
    expect(clearedByEdit(line, "email")).toBe(true);
    expect(clearedByEdit(line, "name")).toBe(false);
    expect(clearedByEdit(errorLine("spec.transport.command: required"), "spec")).toBe(true);
    expect(clearedByEdit(errorLine("spec.transport.command: required"), "spec.transport.args")).toBe(false);
    // An error naming no field is about the whole form: any edit takes it away.
    expect(clearedByEdit(errorLine("Internal error"), "name")).toBe(true);
    expect(clearedByEdit(line, undefined)).toBe(true);
  });

  it("a done line stays through edits: it says what happened", () => {
    expect(clearedByEdit(doneLine("Added Ann"), "email")).toBe(false);
    expect(clearedByEdit(null, "email")).toBe(false);
  });

  it("only the scope's newest start or outcome shows", () => {
    const stale = errorLine("email: taken");
    expect(visibleLine(stale, 1, 1)).toBe(stale);
    // Another action started (ticket 2) — the old error no longer shows under its result.
    expect(visibleLine(stale, 1, 2)).toBeNull();
    // Outside any scope the line is its own.
    expect(visibleLine(stale, 0, null)).toBe(stale);
    expect(visibleLine(null, 3, 3)).toBeNull();
  });

  it("a slow action's late result does not hide the line of an action started after it", () => {
    let latest = 0;
    const claim = () => ++latest;
    const a = { started: null as number | null };
    const b = { started: null as number | null };
    a.started = claim(); // A (a slow save) starts
    b.started = claim(); // B starts after it, and fails at once
    const bError = errorLine("expiresInDays: at least 1");
    const bTicket = outcomeTicket(b, claim);
    const aDone = doneLine("Saved.");
    const aTicket = outcomeTicket(a, claim); // A's result comes last
    expect(visibleLine(bError, bTicket, latest)).toBe(bError);
    expect(visibleLine(aDone, aTicket, latest)).toBeNull();
    // An outcome reported without a start takes a ticket of its own: the newest line then.
    const c = { started: null as number | null };
    const cDone = doneLine("Revoked.");
    const cTicket = outcomeTicket(c, claim);
    expect(visibleLine(cDone, cTicket, latest)).toBe(cDone);
    expect(visibleLine(bError, bTicket, latest)).toBeNull();
  });
});

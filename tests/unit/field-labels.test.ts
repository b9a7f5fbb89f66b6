import { describe, expect, it } from "vitest";
import { labelledMessage, plainProblem } from "../../components/ui/field-labels.ts";

describe("server messages in the form's words", () => {
  it("names each field by its label and restates zod's default wording", () => {
    const mcp = { name: "Name", "transport.command": "Command", "transport.args.*": "Argument", startTimeoutMs: "Start timeout (ms)" };
    expect(labelledMessage("spec.transport.command: Invalid input: expected string, received undefined", { "spec.transport.command": "Command" })).toBe(
      "Command: required",
    );
    expect(labelledMessage("transport.args.2: Too big: expected string to have <=4096 characters; startTimeoutMs: must be at least 1000", mcp)).toBe(
      "Argument: at most 4096 characters; Start timeout (ms): must be at least 1000",
    );
    expect(labelledMessage("expiresInDays: at least 1", { expiresInDays: "Expires in (days)" })).toBe("Expires in (days): at least 1");
  });

  it("drops the name where the label is null, and keeps unknown paths rather than guessing", () => {
    expect(labelledMessage("userId: you cannot deactivate yourself", { userId: null })).toBe("You cannot deactivate yourself");
    expect(labelledMessage("other.field: Invalid input: expected number, received string", {})).toBe("other.field: must be a number");
    expect(labelledMessage("Internal error", { userId: null })).toBe("Internal error");
  });

  it("restates the common zod defaults and leaves our own words alone", () => {
    expect(plainProblem('Invalid option: expected one of "stdio"|"http"')).toBe("must be one of stdio, http");
    expect(plainProblem("Invalid discriminator value. Expected 'stdio' | 'http'")).toBe("must be one of stdio, http");
    expect(plainProblem('Unrecognized keys: "a", "b"')).toBe("unknown fields a, b");
    expect(plainProblem("Too small: expected number to be >=1")).toBe("at least 1");
    expect(plainProblem("must be an http(s) URL")).toBe("must be an http(s) URL");
  });
});

describe("a message of several lines", () => {
  it("labels each line (a profile's problems come one a line)", () => {
    expect(labelledMessage("stepBudget: Too small: expected number to be >=1\nmodel: must not be blank", { stepBudget: "Step budget", model: "Model" })).toBe(
      "Step budget: at least 1\nModel: must not be blank",
    );
  });
});

import { describe, expect, it } from "vitest";
import { checkInt, formatIssues, issuesFromMessage, parseCommandLine, relabelFieldMessage, type CommandSpec } from "../../scripts/lib/cli-args.ts";

const COMMANDS: CommandSpec[] = [
  {
    name: "launch",
    summary: "Launch a task.",
    flags: {
      limit: { type: "string", value: "<n>", description: "packages", int: { min: 1, max: 5000 } },
      scenario: { type: "string", value: "<name>", description: "scenario", choices: ["loop", "stall"] },
      goal: { type: "string", value: "<text>", description: "goal" },
      wait: { type: "boolean", description: "wait" },
    },
    examples: ["cli launch --limit 5"],
  },
  { name: "status", summary: "Show a task.", positionals: [{ name: "taskId", description: "the id" }], examples: ["cli status t1"] },
];
const parse = (...argv: string[]) => parseCommandLine(argv, "cli", "About.", COMMANDS);

describe("parseCommandLine", () => {
  it("parses flags, integers as numbers, booleans and positionals", () => {
    expect(parse("launch", "--limit", "20", "--wait", "--goal", "x y")).toEqual({
      kind: "run",
      command: "launch",
      values: { limit: 20, wait: true, goal: "x y" },
      positionals: [],
    });
    expect(parse("status", "t1")).toEqual({ kind: "run", command: "status", values: {}, positionals: ["t1"] });
  });

  it("--help anywhere prints the program's or the command's help", () => {
    const program = parse("--help");
    const command = parse("launch", "--limit", "abc", "-h");
    const viaHelp = parse("help", "status");
    expect(program.kind === "help" && program.text).toContain("Commands:");
    expect(command.kind === "help" && command.text).toContain("--limit <n>");
    expect(command.kind === "help" && command.text).toContain("(integer 1–5000)");
    expect(viaHelp.kind === "help" && viaHelp.text).toMatch(/^Usage: cli status <taskId>/);
  });

  it.each([
    [["launch", "--limit", "abc"], ['--limit: must be an integer between 1 and 5000, got "abc"']],
    [["launch", "--limit", "5001"], ['--limit: must be an integer between 1 and 5000, got "5001"']],
    [["launch", "--limit", "1.5"], ['--limit: must be an integer between 1 and 5000, got "1.5"']],
    [["launch", "--scenario", "drift"], ['--scenario: must be one of loop, stall, got "drift"']],
    [["launch", "--nope"], ["--nope: unknown flag (known: --limit, --scenario, --goal, --wait)"]],
    [["launch", "--goal"], ["--goal: needs a value"]],
    [["status"], ["<taskId>: missing (the id)"]],
    [["status", "a", "b"], ['unexpected argument "b" (status takes <taskId>)']],
    [["frobnicate"], ['"frobnicate": unknown command (commands: launch, status)']],
    [[], ["no command given (commands: launch, status)"]],
  ])("%j → usage error naming the flag and the limit", (argv, problems) => {
    const parsed = parse(...argv);
    expect(parsed).toMatchObject({ kind: "usage_error", problems });
  });

  it("reports every bad flag at once", () => {
    const parsed = parse("launch", "--limit", "0", "--scenario", "x");
    expect(parsed.kind === "usage_error" && parsed.problems).toHaveLength(2);
  });
});

describe("issue formatting", () => {
  it("checkInt accepts integers in range only", () => {
    expect([checkInt("n", "7", { min: 1, max: 9 }), checkInt("n", " 7 ", { min: 1, max: 9 })]).toEqual([null, null]);
    expect(checkInt("n", "10", { min: 1, max: 9 })).toBe('--n: must be an integer between 1 and 9, got "10"');
    expect(checkInt("n", "9007199254740993", { min: 1, max: 9 })).not.toBeNull();
  });

  it("restates zod issues with the flag's name and the limit", () => {
    const labelOf = (path: string) =>
      path === "demo.limit" ? { label: "--limit", given: 0 } : path === "goal" ? { label: "--goal", given: "x".repeat(100) } : null;
    expect(
      formatIssues(
        [
          { path: ["demo", "limit"], message: "demo.limit: at least 1" },
          { path: ["goal"], message: "Too big: expected string to have <=20 characters", code: "too_big", origin: "string", maximum: 20 },
          { path: ["other"], message: "bad" },
        ],
        labelOf,
      ),
    ).toEqual(["--limit: at least 1, got 0", "--goal: at most 20 characters, got 100 characters", "other: bad"]);
  });

  it("reads zod issues out of an API message, and relabels `field: problem` messages", () => {
    expect(issuesFromMessage('[{"path":["goal"],"message":"goal: must not be empty"}]')).toEqual([{ path: ["goal"], message: "goal: must not be empty" }]);
    expect(issuesFromMessage("not json")).toBeNull();
    expect(issuesFromMessage('[{"nope":1}]')).toBeNull();
    const labelOf = (path: string) => (path === "profile" ? { label: "--profile" } : null);
    expect(relabelFieldMessage('profile: no agent profile named "x"', labelOf)).toBe('--profile: no agent profile named "x"');
    expect(relabelFieldMessage("something else happened", labelOf)).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import {
  checkInt,
  formatIssues,
  issuesFromMessage,
  parseCommandLine,
  parseScriptLine,
  relabelFieldMessage,
  type CommandSpec,
} from "../../scripts/lib/cli-args.ts";
import { defineScript } from "../../scripts/lib/script-args.ts";

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

describe("parseScriptLine (a script that is one command)", () => {
  const SCRIPT = defineScript({
    program: "npm run bench:x --",
    summary: "Measures x.",
    flags: {
      steps: { type: "string", value: "<n>", description: "steps", int: { min: 10, max: 200_000 }, default: 50_000 },
      share: { type: "string", value: "<0-1>", description: "share struck", number: { min: 0, max: 1 }, default: 0.5 },
      sizes: { type: "string", value: "<n,…>", description: "sizes", int: { min: 1, max: 5000 }, list: true, default: [1, 100] },
      skip: { type: "string", value: "<stage,…>", description: "stages to skip", choices: ["lint", "unit", "e2e"], list: true },
      mode: { type: "string", value: "<mode>", description: "mode", choices: ["both", "classic"], default: "both" },
      "min-gap": { type: "string", value: "<ms>", description: "shortest gap", int: { min: 0, max: 600_000 }, default: 1500 },
      "max-gap": { type: "string", value: "<ms>", description: "longest gap", int: { min: 0, max: 600_000 }, default: 6000 },
      verbose: { type: "boolean", description: "log more" },
    },
    examples: ["npm run bench:x -- --steps 500"],
    check: (v) => [v["max-gap"] < v["min-gap"] ? `--max-gap: must be at least --min-gap (${v["min-gap"]}), got ${v["max-gap"]}` : null],
  });
  const parse = (...argv: string[]) => parseScriptLine(argv, SCRIPT);

  it("fills in the defaults, booleans false, and types each value", () => {
    const parsed = parse();
    expect(parsed).toEqual({
      kind: "run",
      values: { steps: 50_000, share: 0.5, sizes: [1, 100], mode: "both", "min-gap": 1500, "max-gap": 6000, verbose: false },
      positionals: [],
    });
    if (parsed.kind !== "run") return;
    // The values are typed by the spec: numbers, arrays, booleans (a compile error otherwise).
    const typed: { steps: number; share: number; sizes: number[]; skip: string[] | undefined; verbose: boolean } = parsed.values;
    expect(typed.steps + typed.share).toBe(50_000.5);
  });

  it("parses given values: integers, decimals, lists (repeated flags add up), choices, booleans", () => {
    expect(parse("--steps", "500", "--share=0.25", "--sizes", "5,50", "--skip=e2e", "--skip", "lint,unit", "--verbose")).toMatchObject({
      kind: "run",
      values: { steps: 500, share: 0.25, sizes: [5, 50], skip: ["e2e", "lint", "unit"], verbose: true },
    });
  });

  it.each([
    [["--stpes", "5"], ["--stpes: unknown flag (known: --steps, --share, --sizes, --skip, --mode, --min-gap, --max-gap, --verbose)"]],
    [["--steps", "5"], ['--steps: must be an integer between 10 and 200000, got "5"']],
    [["--steps", "-5"], ['--steps: must be an integer between 10 and 200000, got "-5"']],
    [["--steps"], ["--steps: needs a value"]],
    [["--share", "1.5"], ['--share: must be a number between 0 and 1, got "1.5"']],
    [["--share", "half"], ['--share: must be a number between 0 and 1, got "half"']],
    [["--sizes", "1,x"], ['--sizes: must be an integer between 1 and 5000, got "x" (each item of the comma-separated list)']],
    [["--sizes", "1,,5"], ['--sizes: an empty item in "1,,5"']],
    [["--skip=build"], ['--skip: must be one of lint, unit, e2e, got "build" (each item of the comma-separated list)']],
    [["--mode", "fast"], ['--mode: must be one of both, classic, got "fast"']],
    [["--verbose=yes"], ["--verbose: takes no value"]],
    [["extra"], ['unexpected argument "extra" (it takes no arguments)']],
    [["--min-gap", "5000", "--max-gap", "100"], ["--max-gap: must be at least --min-gap (5000), got 100"]],
  ])("%j → one line naming the flag and its limit", (argv, problems) => {
    expect(parse(...argv)).toEqual({ kind: "usage_error", problems });
  });

  it("reports every bad value at once", () => {
    const parsed = parse("--steps", "1", "--share", "2", "--mode", "x");
    expect(parsed.kind === "usage_error" && parsed.problems).toHaveLength(3);
  });

  it("--help anywhere answers the script's usage: every flag with its limit and default", () => {
    const parsed = parse("--steps", "nope", "--help");
    expect(parsed.kind).toBe("help");
    const text = parsed.kind === "help" ? parsed.text : "";
    expect(text.split("\n")[0]).toBe("Usage: npm run bench:x -- [flags]");
    expect(text).toContain("Measures x.");
    expect(text).toMatch(/--steps <n>\s+steps \(integer 10–200000, default 50000\)/);
    expect(text).toMatch(/--share <0-1>\s+share struck \(number 0–1, default 0\.5\)/);
    expect(text).toMatch(/--sizes <n,…>\s+sizes \(comma-separated, each integer 1–5000, default 1,100\)/);
    expect(text).toMatch(/--skip <stage,…>\s+stages to skip \(comma-separated, each one of: lint, unit, e2e\)/);
    expect(text).toMatch(/--verbose\s+log more\n/);
    expect(text).toMatch(/--help, -h\s+print this help and exit/);
    expect(text).toContain("  npm run bench:x -- --steps 500");
    expect(parse("-h").kind).toBe("help");
  });
});

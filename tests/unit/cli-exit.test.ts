import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { TASK_STATUSES } from "../../lib/contracts/status.ts";
import { EXIT_CODE_TABLE, EXIT_CODES, exitCodeForTaskStatus } from "../../scripts/lib/cli-exit.ts";
import { parseCommandLine, type CommandSpec } from "../../scripts/lib/cli-args.ts";
import { childNodeArgs } from "../support/child-bundles.ts";

// The CLI's exit code tells a task's outcome apart (README "Exit codes"), and a negative number
// after a flag gets the flag's range message, not node parseArgs' "argument is ambiguous".

describe("exitCodeForTaskStatus", () => {
  it.each([
    ["completed", 0],
    ["waiting_for_human", 3],
    ["dead_end", 4],
    ["failed", 5],
    ["cancelled", 6],
    ["queued", 7],
    ["running", 7],
  ])("%s → %i", (status, code) => {
    expect(exitCodeForTaskStatus(status)).toBe(code);
  });

  it("covers every task status; outcomes have distinct codes, none of them the usage (2) or failure (1) code", () => {
    const codes = TASK_STATUSES.map((s) => exitCodeForTaskStatus(s));
    const outcomes = ["completed", "waiting_for_human", "dead_end", "failed", "cancelled"].map((s) => exitCodeForTaskStatus(s));
    expect(new Set(outcomes).size).toBe(outcomes.length);
    expect(codes).not.toContain(EXIT_CODES.usage);
    expect(codes).not.toContain(EXIT_CODES.commandFailed);
    expect(() => exitCodeForTaskStatus("paused")).toThrow('unknown task status "paused"');
  });

  it("the documented table lists every code once", () => {
    expect(EXIT_CODE_TABLE.map((e) => e.code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(new Set(Object.values(EXIT_CODES)).size).toBe(Object.keys(EXIT_CODES).length);
  });
});

const COMMANDS: CommandSpec[] = [
  {
    name: "list",
    summary: "List.",
    flags: { limit: { type: "string", value: "<n>", description: "rows", int: { min: 1, max: 200 } }, goal: { type: "string", description: "text" } },
    examples: [],
  },
];

describe("a negative number after a flag", () => {
  it("--limit -5 (with a space) gets the range message", () => {
    expect(parseCommandLine(["list", "--limit", "-5"], "cli", "About.", COMMANDS)).toEqual({
      kind: "usage_error",
      command: "list",
      problems: ['--limit: must be an integer between 1 and 200, got "-5"'],
    });
    expect(parseCommandLine(["list", "--limit=-5"], "cli", "About.", COMMANDS)).toEqual({
      kind: "usage_error",
      command: "list",
      problems: ['--limit: must be an integer between 1 and 200, got "-5"'],
    });
    // A text flag takes a negative number as its value; a following flag is still a flag.
    expect(parseCommandLine(["list", "--goal", "-3", "--limit", "4"], "cli", "About.", COMMANDS)).toEqual({
      kind: "run",
      command: "list",
      values: { goal: "-3", limit: 4 },
      positionals: [],
    });
    expect(parseCommandLine(["list", "--goal", "--limit", "4"], "cli", "About.", COMMANDS)).toMatchObject({ kind: "usage_error" });
  });

  it("the real CLI: --limit -5 and --cost-budget -1 exit 2 with the documented messages (checked before any request)", () => {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
        encoding: "utf8",
        env: { ...process.env, LONGHAUL_URL: "http://127.0.0.1:9" },
      });
    const limit = cli("launch", "--demo", "license-audit", "--limit", "-5");
    expect({ status: limit.status, first: limit.stderr.split("\n")[0] }).toEqual({
      status: 2,
      first: '--limit: must be an integer between 1 and 5000, got "-5"',
    });
    const cost = cli("launch", "--demo", "license-audit", "--cost-budget", "-1");
    expect({ status: cost.status, first: cost.stderr.split("\n")[0] }).toEqual({
      status: 2,
      first: '--cost-budget: at least 0.000001 (a millionth of a dollar, the stored precision), got "-1"',
    });
    expect(JSON.parse(cost.stdout.trim().split("\n").at(-1)!)).toMatchObject({ problems: [expect.stringMatching(/^--cost-budget: at least 0\.000001/)] });
  }, 30_000);
});

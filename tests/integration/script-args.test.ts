/**
 * The scripts' command lines as a user meets them: the real script, run as `npm run …` runs it
 * (node --import tsx), refuses an unknown flag or a bad value with one line naming the flag and its
 * limit (exit 2, before anything starts), and answers --help with its flags. A handful of scripts of
 * each kind (a benchmark, a mode switch, npm test, a script of commands); tests/unit/cli-args.test.ts
 * covers the parser and tests/unit/script-flags.test.ts that every script declares its flags.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");

/** Runs `scripts/<file>` with `args`; its exit code, stdout and stderr once it has exited. */
function runScript(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ["--import", "tsx", resolve(root, "scripts", file), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

describe("a script's command line", () => {
  it.each([
    ["bench-ui.ts", ["--steps", "5"], '--steps: must be an integer between 10 and 200000, got "5"', "npm run bench:ui -- --help"],
    ["bench-ui.ts", ["--stpes", "500"], "--stpes: unknown flag (known: --steps, --tasks, --repeat)", "npm run bench:ui -- --help"],
    ["chaos.ts", ["--stack", "--mcp-limit", "99"], '--mcp-limit: must be an integer between 1 and 24, got "99"', "npm run chaos -- --stack --help"],
    ["chaos.ts", ["--mcp-limit", "2"], "--mcp-limit: unknown flag", "npm run chaos -- --help"],
    [
      "test.ts",
      ["--skip=e2e,nope"],
      '--skip: must be one of typecheck, lint, format, boundaries, docs, unit, integration-db, integration-stack, build, e2e, integration, got "nope"',
      "npm test -- --help",
    ],
    ["migrate.ts", ["deploy", "--force"], "--force: unknown flag", "tsx scripts/migrate.ts deploy --help"],
  ])("%s %j: one line naming the flag and its limit, exit 2, nothing started", async (file, args, problem, hint) => {
    const { code, stdout, stderr } = await runScript(file, args);
    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toContain(problem);
    expect(stderr).toContain(`Run \`${hint}\``);
    // The last stdout line is one JSON object, like every script's; nothing before it (nothing ran).
    expect(stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ problems: [expect.stringContaining(problem)] });
  });

  it.each([
    ["bench-ui.ts", [], ["Usage: npm run bench:ui -- [flags]", "--steps <n>", "default 50000", "--repeat <n>"]],
    ["chaos.ts", ["--stack"], ["Usage: npm run chaos -- --stack [flags]", "--backoff-ms <ms,…>", "default 500,1000,2000,4000", "--mcp-tasks <n>"]],
    ["test.ts", [], ["Usage: npm test -- [flags]", "--skip <stage,…>", "--only <stage,…>"]],
    ["start.ts", [], ["Usage: npm start -- [flags]", "--dev", "--no-build"]],
  ])("%s %j --help: its flags with their limits and defaults, exit 0", async (file, args, lines) => {
    const { code, stdout } = await runScript(file, [...args, "--help"]);
    expect(code).toBe(0);
    for (const line of lines) expect(stdout).toContain(line);
  });
});

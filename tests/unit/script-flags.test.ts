/**
 * Every script under scripts/ reads its command line through the one parser
 * (scripts/lib/cli-args.ts, via scripts/lib/script-args.ts or, for the CLI, parseCommandLine), so
 * each refuses an unknown flag and a bad value naming the flag, and answers --help with its flags
 * (tests/integration/script-args.test.ts runs a few of them). A script that looked at
 * `process.argv` itself would accept a misspelt flag silently.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const scripts = resolve(import.meta.dirname, "../../scripts");
const entryPoints = readdirSync(scripts).filter((f) => f.endsWith(".ts"));
/**
 * Where process.argv may appear: handed to the parser, the mode switch of chaos (both modes' specs
 * declare --stack, and the chosen one parses the whole line) and start's re-run of itself.
 */
const ALLOWED_ARGV = [
  /(parseCommandLine|parseScriptArgs|parseCommandArgs)\(process\.argv\.slice\(2\)/,
  /process\.argv\.slice\(2\)\.includes\("--stack"\)/,
  /\.\.\.process\.argv\.slice\(1\)/,
];

describe("every script's command line", () => {
  it("finds the scripts", () => {
    expect(entryPoints).toEqual(expect.arrayContaining(["bench-ui.ts", "chaos.ts", "start.ts", "test.ts", "migrate.ts", "cli.ts"]));
  });

  it.each(entryPoints)("%s parses its flags with the one parser and reads process.argv nowhere else", (file) => {
    const text = readFileSync(resolve(scripts, file), "utf8");
    // Declares its flags (defineScript: chaos-stack.ts's spec, which chaos.ts parses) or parses them.
    expect(text).toMatch(/\b(defineScript\(|runScript\(|parseScriptArgs\(|parseCommandArgs\(|parseCommandLine\()/);
    const reads = text.split("\n").filter((line) => line.includes("process.argv") && !ALLOWED_ARGV.some((ok) => ok.test(line)));
    expect(reads).toEqual([]);
    expect(text).not.toMatch(/from "node:util"[^\n]*|\bparseArgs\(/);
  });
});

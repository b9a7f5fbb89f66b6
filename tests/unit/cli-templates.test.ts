import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { childNodeArgs } from "../support/child-bundles.ts";

// `templates …` and `launch --template`: usage problems are reported before any request (the URL
// below answers nothing, so reaching it would be a different error).
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
    encoding: "utf8",
    env: { ...process.env, LONGHAUL_URL: "http://127.0.0.1:9", LONGHAUL_TOKEN: "lh_unused" },
  });
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as { problems?: string[]; error?: string };

describe("cli templates", () => {
  it("refuses a bare `templates`, naming its subcommands", () => {
    const r = cli("templates");
    expect(r.status).toBe(2);
    expect(lastJson(r.stdout).problems).toEqual(["templates: give a subcommand (list, save, history, edit, delete)"]);
  });

  it("launch --template refuses the flags the template already has, all at once, exit 2", () => {
    const r = cli("launch", "--template", "weekly", "--goal", "x", "--profile", "scripted");
    expect(r.status).toBe(2);
    expect(lastJson(r.stdout).problems).toEqual([
      "--goal: cannot be combined with --template (the template has it)",
      "--profile: cannot be combined with --template (the template has it)",
    ]);
  });

  it("templates save needs --name", () => {
    const r = cli("templates", "save", "task_01");
    expect(r.status).toBe(2);
    expect(lastJson(r.stdout).problems).toEqual(["--name: required (the template's name, kebab-case)"]);
  });

  it("templates list reaches for the API (and says it cannot, exit non-zero)", () => {
    const r = cli("templates", "list");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("cannot reach Longhaul");
  });
});

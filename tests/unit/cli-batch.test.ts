import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { childNodeArgs } from "../support/child-bundles.ts";

// `resume` and `cancel` take one task or a batch filter (many tasks at once); their usage
// problems are reported all at once, before any request (the URL below answers nothing).
const cli = (...args: string[]) =>
  spawnSync(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
    encoding: "utf8",
    env: { ...process.env, LONGHAUL_URL: "http://127.0.0.1:9", LONGHAUL_TOKEN: "lh_unused" },
  });

describe("cli resume / cancel, one task or a batch", () => {
  it("a task id with filter flags and --dry-run: every problem at once, exit 2", () => {
    const r = cli("resume", "task_01", "--status", "failed", "--since", "2026-12-01", "--dry-run");
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      "<taskId>: give a task id or filter flags (--status, --since), not both",
      "--dry-run: only applies to a batch (filter flags)",
    ]);
  }, 30_000);

  it("neither a task id nor a filter; a bad status and failure class are named together", () => {
    const none = cli("cancel");
    expect(none.status).toBe(2);
    expect(JSON.parse(none.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      "cancel needs a <taskId> or at least one of --status, --failure, --profile, --since, --until",
    ]);
    const bad = cli("resume", "--status", "broken", "--failure", "nope");
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      expect.stringMatching(/^--status: must be one of queued, running/),
      expect.stringMatching(/^--failure: must be one of transient, saturation/),
    ]);
  }, 30_000);

  it("--help shows the optional task id and the batch flags", () => {
    const help = cli("resume", "--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: npm run cli -- resume [<taskId>] [flags]");
    expect(help.stdout).toContain("--dry-run");
  }, 30_000);

  it("bad --since / --until values name the flag and the forms it takes, every problem at once", () => {
    const forms = "an ISO date-time (2026-12-01T14:05:00Z), a date YYYY-MM-DD or a duration like 30d";
    const word = cli("resume", "--since", "yesterday");
    expect(word.status).toBe(2);
    expect(JSON.parse(word.stdout.trim().split("\n").at(-1)!).problems).toEqual([`--since: ${forms}, got "yesterday"`]);
    const day = cli("resume", "--since", "2026-13-45", "--until", "soon", "--dry-run");
    expect(day.status).toBe(2);
    expect(JSON.parse(day.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      `--since: 2026-13-45 is not a day of the calendar (${forms})`,
      `--until: ${forms}, got "soon"`,
    ]);
    const order = cli("cancel", "--since", "2026-12-05", "--until", "2026-12-01T00:00:00Z");
    expect(order.status).toBe(2);
    expect(JSON.parse(order.stdout.trim().split("\n").at(-1)!).problems).toEqual(["--since must be before --until"]);
    const bad = cli("cancel", "--since", "0d");
    expect(JSON.parse(bad.stdout.trim().split("\n").at(-1)!).problems).toEqual(["--since: days must be between 1 and 3650, got 0"]);
  }, 60_000);

  it("costs: --since after --until and a bad --until are usage errors naming the flags", () => {
    const order = cli("costs", "--until", "2026-12-01", "--since", "2026-12-05");
    expect(order.status).toBe(2);
    expect(JSON.parse(order.stdout.trim().split("\n").at(-1)!).problems).toEqual(["--since must be on or before --until"]);
    const both = cli("costs", "--until", "2026-02-30", "--since", "last week");
    expect(JSON.parse(both.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      '--since: a date YYYY-MM-DD or a duration like 30d, got "last week"',
      "--until: 2026-02-30 is not a day of the calendar (a date YYYY-MM-DD or a duration like 30d)",
    ]);
  }, 60_000);

  it("a bad --since is reported together with a bad --status", () => {
    const r = cli("resume", "--status", "broken", "--since", "yesterday");
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!).problems).toEqual([
      expect.stringMatching(/^--status: must be one of/),
      expect.stringMatching(/^--since: an ISO date-time .* got "yesterday"$/),
    ]);
  }, 30_000);
});

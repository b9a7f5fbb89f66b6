import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

// `resume` and `cancel` take one task or a batch filter (issue 18, "Many at once"); their usage
// problems are reported all at once, before any request (the URL below answers nothing).
const cli = (...args: string[]) =>
  spawnSync(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../scripts/cli.ts"), ...args], {
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
});

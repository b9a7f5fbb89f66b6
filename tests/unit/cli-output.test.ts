import { describe, expect, it } from "vitest";
import { fakeApi, runCli } from "./cli-fake-api.ts";

describe("cli output formats", () => {
  it("eval report --format csv prints the CSV itself on stdout, --format json the rows", async () => {
    const csv = "cellId,caseKey,profile\ncell_1,a,scripted\n";
    const api = await fakeApi({ "eval.export": { format: "csv", content: csv } });
    try {
      const r = await runCli(api.url, ["eval", "report", "evalrun_1", "--format", "csv"]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(csv);
    } finally {
      await api.close();
    }
    const rows = '[{"cellId":"cell_1"}]';
    const json = await fakeApi({ "eval.export": { format: "json", content: rows } });
    try {
      const r = await runCli(json.url, ["eval", "report", "evalrun_1", "--format", "json"]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${rows}\n`);
    } finally {
      await json.close();
    }
  }, 30_000);

  it("escalations --status decided is the inbox's Decided tab (closed is the same)", async () => {
    const api = await fakeApi({ "escalation.list": [] });
    try {
      for (const status of ["decided", "closed", "open"]) {
        const r = await runCli(api.url, ["escalations", "--status", status]);
        expect(r.status, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).toEqual({ escalations: [] });
      }
      const help = await runCli(api.url, ["escalations", "--help"]);
      expect(help.stdout).toContain("closed is the same as decided");
    } finally {
      await api.close();
    }
  }, 30_000);

  it("an app that takes the request but never answers: a timeout naming the URL, exit 1", async () => {
    const api = await fakeApi("hang");
    try {
      const started = Date.now();
      const r = await runCli(api.url, ["list"], { LONGHAUL_CLI_TIMEOUT: "1" });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`Longhaul at ${api.url} did not answer within 1 s`);
      expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!).error).toContain("did not answer");
      expect(Date.now() - started).toBeLessThan(15_000);
      const bad = await runCli(api.url, ["list"], { LONGHAUL_CLI_TIMEOUT: "soon" });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("LONGHAUL_CLI_TIMEOUT: a number of seconds above 0");
    } finally {
      await api.close();
    }
  }, 30_000);

  it("list and escalations print untrusted text with controls and bidi overrides escaped; JSON stays exact", async () => {
    const goal = "\u001b[2J\u001b]0;pwned\u0007evil\u202egpj.exe\nsecond line";
    const row = { id: "task_1", status: "queued", stepsUsed: 0, stepBudget: 10, checkpointSteps: 0, humanSteps: 0, goal };
    const api = await fakeApi({
      "task.list": { rows: [row] },
      "escalation.list": [
        {
          id: "esc_1",
          taskId: "task_1",
          reason: "manual\u001b[31m",
          status: "open",
          dueAt: new Date("2026-12-05T23:45:20Z"),
          overdue: true,
          phase: "reminding",
          nextReminderAt: new Date("2026-12-05T23:46:20Z"),
        },
      ],
    });
    try {
      const list = await runCli(api.url, ["list"]);
      expect(list.status, list.stderr).toBe(0);
      expect(list.stderr).toContain("\\x1b[2J\\x1b]0;pwned\\x07evil\\u202egpj.exe\\nsecond line");
      expect(list.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
      const esc = await runCli(api.url, ["escalations"]);
      expect(esc.stderr).toContain("manual\\x1b[31m");
      expect(esc.stderr).not.toContain("\u001b");
      expect(JSON.parse(esc.stdout).escalations[0].reason).toBe("manual\u001b[31m");
      // The due time the card and the run page show, said the same way.
      expect(esc.stderr).toContain("OVERDUE · Overdue since 2026-12-05T23:45:20Z");
    } finally {
      await api.close();
    }
  }, 30_000);
});

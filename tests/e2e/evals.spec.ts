import { spawnSync } from "node:child_process";
import { expect, test } from "@playwright/test";

// A manager starts an eval from the browser: a suite applied through the API, two scripted
// profiles that behave differently, the report per profile, the matrix, and a failing cell opened to
// the check that failed with the values it saw. Then the CLI's gate fails its exit code (CI use).

const audit = (limit: number) => ({
  name: `audit-${limit}`,
  launch: { demo: { kind: "license-audit", limit } },
  checks: [{ kind: "artifact", name: "licenses.csv", expected: "license-audit" }],
});

test("a manager starts an eval from /evals, reads the report and a failing cell's moment; a CLI gate fails with exit 8", async ({ page, request, baseURL }) => {
  test.setTimeout(300_000);
  const apply = await request.post("/api/trpc/eval.applySuite", {
    data: { json: { name: "e2e-audits", description: "two audit sizes", cases: [audit(3), audit(8)] } },
  });
  expect(apply.ok(), await apply.text()).toBe(true);

  await page.goto("/evals");
  await expect(page.getByRole("heading", { name: "Evals" })).toBeVisible();
  await expect(page.getByTestId("suite-e2e-audits")).toContainText("audit-3, audit-8");
  const form = page.getByRole("form", { name: "Start an eval run" });
  await form.getByLabel("Suite").selectOption("e2e-audits");
  await form.getByLabel("scripted", { exact: true }).check();
  await form.getByLabel("scripted-sloppy", { exact: true }).check();
  await form.getByRole("button", { name: "Start eval run" }).click();
  await expect(page).toHaveURL(/\/evals\/runs\/evalrun_/);
  const runUrl = page.url();

  await expect(page.getByTestId("eval-status")).toContainText("completed", { timeout: 240_000 });
  const good = page.getByTestId("report-scripted");
  const sloppy = page.getByTestId("report-scripted-sloppy");
  await expect(good.getByTestId("pass-rate")).toContainText("100%");
  await expect(good.getByTestId("pass-hat-k")).toHaveText("100%");
  await expect(sloppy.getByTestId("pass-rate")).toContainText("50%");
  await expect(sloppy.getByTestId("cost-per-pass")).toContainText("$");
  await expect(sloppy).toContainText("check failed: 1");

  // The failing cell: audit-8 × scripted-sloppy, opened to the check and the line it saw.
  const cell = page.getByTestId("cell-audit-8-scripted-sloppy-0");
  await expect(cell).toContainText("failed");
  await cell.getByText("check failed: why").click();
  await expect(cell).toContainText(/line 8: expected ".*", got ".*UNKNOWN.*"/);
  await expect(page.getByTestId("cell-audit-3-scripted-sloppy-0")).toContainText("passed");
  // …and its task is one click away.
  await cell.getByRole("link", { name: "task" }).click();
  await expect(page).toHaveURL(/\/tasks\/task_/);
  // The task page says where the task came from, and links back to the eval run's report.
  const origin = page.getByTestId("task-origin-eval");
  await expect(origin).toHaveText("Eval cell of eval run e2e-audits: case audit-8 · profile scripted-sloppy · repeat 1");
  await expect(page.getByTestId("task-origin-template")).toHaveCount(0);
  await origin.getByRole("link", { name: "eval run e2e-audits" }).click();
  await expect(page).toHaveURL(runUrl);
  await expect(page.getByTestId("eval-status")).toContainText("completed");

  // The CLI against the same app (the local admin token of DATA_DIR): the gate fails, exit 8, JSON last.
  const cli = spawnSync(
    process.execPath,
    ["--import", "tsx", "scripts/cli.ts", "eval", "run", "e2e-audits", "--profiles", "scripted-sloppy", "--wait", "--min-pass-rate", "0.9"],
    {
      encoding: "utf8",
      env: { ...process.env, LONGHAUL_URL: baseURL, DATA_DIR: process.env.LONGHAUL_E2E_DATA },
      timeout: 240_000,
    },
  );
  expect(cli.status, cli.stderr).toBe(8);
  const line = JSON.parse(cli.stdout.trim().split("\n").at(-1)!) as {
    profiles: { profile: string; passRate: number; passHatK: number }[];
    gates: { failed: string[] };
  };
  expect(line.profiles).toEqual([expect.objectContaining({ profile: "scripted-sloppy", passRate: 0.5, passHatK: 0.5 })]);
  expect(line.gates.failed).toEqual(["scripted-sloppy: pass rate 0.5 < 0.9"]);

  // Two eval runs side by side: the browser's run compared with the CLI's (sloppy alone, same results).
  await page.goto(runUrl);
  await page.getByLabel("Compare with an earlier run").selectOption({ index: 1 });
  await expect(page).toHaveURL(/compareTo=evalrun_/);
  await expect(page.getByTestId("eval-diff")).toContainText("audit-3 × scripted: new");
  await expect(page.getByTestId("eval-diff")).not.toContainText("scripted-sloppy");
  await expect(page.getByTestId("budget-audit-3-scripted-sloppy")).toContainText("no history yet (2 passing runs, 3 needed)");
});

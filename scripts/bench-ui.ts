/**
 * `npm run bench:ui -- [--steps 50000] [--tasks 100000] [--repeat 5]`
 *
 * How fast the run page and the task list show their first rows at the scale of real use, in a real
 * browser (under 1 s at 50,000 steps on a task page and 100,000 tasks in the list). Starts
 * an ephemeral embedded PostgreSQL (migrations applied, default profiles seeded), bulk-inserts one
 * task of `--steps` steps (two runs, interval checkpoints, failed / retried / deduplicated steps, model
 * calls with costs) and `--tasks` − 1 short tasks with scripts/lib/seed-ui.ts (multi-row INSERTs of
 * the rows the write paths write; not produced by the write paths themselves), so the list holds
 * exactly `--tasks` tasks; then starts the app on it (`scripts/start.ts`, building the web app first
 * when the build is missing or stale) on free ports, and opens both pages in Debian's Chromium
 * through Playwright (docs/STACK.md pitfall 5).
 *
 * firstRowsMs = time from navigation start (the page's `performance.timeOrigin`) until the first
 * step row (`[data-step-id]`) / task row (`[data-task-id]`) is in the DOM, read inside the page with
 * `performance.now()` by a MutationObserver installed before the page's own scripts
 * (`recordFirstRows`). `probeLagMs` (median, not gated) is how much later a poll on animation frames,
 * this benchmark's earlier reading, saw the same row. Three figures per page:
 * - `firstLoadMs`: the very first load after the app started (server cold: route code not yet
 *   loaded, nothing cached anywhere but PostgreSQL's buffers, which the seed filled);
 * - `coldFirstRowsMs`: the median of `--repeat` loads, each in a new browser context (empty HTTP
 *   cache, no cookies but the session's), the server warm;
 * - `firstRowsMs` (warm): the median of `--repeat` loads in the same browser context after one
 *   warm-up (HTTP caches warm). `samples` / `coldSamples` list them.
 * The first rows come with the page's HTML; `interactiveMs` (median over every load of the page, not
 * gated) is when the browser has taken them over (the list scrolls, rows answer clicks).
 * Also `filterFailedMs` (click "failed" on the long run's page until only failed rows show) and, for
 * the list, `searchMs` (a `?q=` load until rows show).
 *
 * The result keys carry the sizes actually seeded: `taskPage<steps>` (steps of the long task as
 * inserted) and `taskList<tasks>` (tasks in the list).
 *
 * Progress goes to stderr; the LAST stdout line is one compact JSON object:
 * `{"taskPage50000":{"firstRowsMs":…,"coldFirstRowsMs":…,"firstLoadMs":…,"samples":[…],"coldSamples":[…],"filterFailedMs":…},
 *   "taskList100000":{…,"searchMs":…},"steps":…,"tasks":…,"seedMs":…,"pass":…}`.
 * Pass (exit 0) when the warm and the cold medians of both pages are under 1,000 ms; exit 1 otherwise.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import pg from "pg";
import { createPrismaClient } from "../server/db/client.ts";
import { seedDefaults } from "../server/db/seed.ts";
import { freePort, progress, round, runScript, startBenchDatabase } from "./lib/bench-stack.ts";
import { defineScript, type FlagsOf } from "./lib/script-args.ts";
import { profileIdOrThrow, seedLongTask, seedManyTasks } from "./lib/seed-ui.ts";
import { chromiumLaunchOptions } from "./lib/chromium.ts";
import { waitForUrl } from "./lib/supervisor.ts";

const TAG = "bench:ui";
const root = resolve(import.meta.dirname, "..");

/** Matches once the browser has taken over a page's first rows (components/ui/use-hydrated.ts): the list scrolls, rows answer clicks. */
const INTERACTIVE = '[data-testid="timeline"][data-interactive], [data-testid="task-table-scroll"][data-interactive]';

/** Interactive times of the loads measured so far, per URL (reported beside the first-row times, not gated). */
const interactive = new Map<string, number[]>();

/** Row selectors whose first match {@link recordFirstRows} times in every page. */
const ROW_SELECTORS = ["[data-step-id]", "[data-task-id]"];

/**
 * The script run in every page of a benchmark context before the page's own scripts (Playwright's
 * init script): it records in `window.__firstRows[selector]` the `performance.now()` at which a
 * selector first matched, and stops at the first match (a page shows one kind of row, and the
 * observer must not query the whole document on every later mutation of the page it measures).
 * A MutationObserver's callback runs at the microtask checkpoint right after the parser task that inserted the nodes, so the time is when the row entered the DOM, whatever the
 * page's scripts then keep the main thread busy with. (A poll on animation frames runs only when
 * the main thread is free: on a cold load, with ~720 kB of script to compile, it saw rows that were
 * already in the DOM 50–1,000 ms late.)
 */
function recordFirstRows(selectors: string[]): string {
  // A string, not a function Playwright serializes: tsx compiles this file with esbuild's keepNames,
  // which wraps inner functions in a `__name` helper that does not exist in the page.
  return `(() => {
    const selectors = ${JSON.stringify(selectors)};
    const seen = {};
    window.__firstRows = seen;
    const check = () => {
      for (const s of selectors) if (!(s in seen) && document.querySelector(s)) seen[s] = performance.now();
      return Object.keys(seen).length > 0;
    };
    const observer = new MutationObserver(() => {
      if (check()) observer.disconnect();
    });
    observer.observe(document, { childList: true, subtree: true });
  })();`;
}

/** How much later than the row entered the DOM an animation-frame poll saw it, per URL (reported, not gated). */
const probeLag = new Map<string, number[]>();

/**
 * ms since navigation start when `selector` first matched, measured inside the page by
 * {@link recordFirstRows} (the context must have it as an init script); also records when the page
 * became interactive ({@link INTERACTIVE}) under `url` in {@link interactive}, and the animation-frame
 * poll's lag in {@link probeLag}.
 * @throws Error when the row never appears within 60 s, or the page lacks the init script's record.
 */
async function firstMatchMs(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction((sel) => (document.querySelector(sel) ? performance.now() : false), selector, { polling: "raf", timeout: 60_000 });
  const ready = await page.waitForFunction((sel) => (document.querySelector(sel) ? performance.now() : false), INTERACTIVE, {
    polling: "raf",
    timeout: 60_000,
  });
  interactive.set(url, [...(interactive.get(url) ?? []), round(Number(await ready.jsonValue()), 0)]);
  const inserted = await page.evaluate((sel) => (window as unknown as { __firstRows?: Record<string, number> }).__firstRows?.[sel], selector);
  if (typeof inserted !== "number") throw new Error(`no first-row time for ${selector} on ${url}: the context lacks the recordFirstRows init script`);
  probeLag.set(url, [...(probeLag.get(url) ?? []), round(Number(await handle.jsonValue()) - inserted, 0)]);
  return round(inserted, 0);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

const SCRIPT = defineScript({
  program: "npm run bench:ui --",
  summary: "First rows of a long task's run page and of a big task list, cold and warm, in Chromium.",
  flags: {
    steps: { type: "string", value: "<n>", description: "steps of the long task", int: { min: 10, max: 200_000 }, default: 50_000 },
    tasks: { type: "string", value: "<n>", description: "tasks in the list", int: { min: 2, max: 999_999 }, default: 100_000 },
    repeat: { type: "string", value: "<n>", description: "loads of each page per figure (the median is reported)", int: { min: 1, max: 50 }, default: 5 },
  },
  notes: ["Pass (exit 0): warm and cold medians of both pages under 1,000 ms. See the docstring of scripts/bench-ui.ts."],
  examples: ["npm run bench:ui", "npm run bench:ui -- --steps 50000"],
});

async function main({ steps, tasks: taskCount, repeat }: FlagsOf<typeof SCRIPT>): Promise<number> {
  const db = await startBenchDatabase({ name: "bench_ui", tag: TAG });
  const dataDir = mkdtempSync(join(tmpdir(), "longhaul-bench-ui-"));
  let app: ReturnType<typeof spawn> | null = null;
  let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
  try {
    const prisma = createPrismaClient(db.url, { max: 2 });
    await seedDefaults(prisma);
    await prisma.$disconnect();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const profileId = await profileIdOrThrow(client);
    const t0 = Date.now();
    const long = await seedLongTask(client, { prefix: "bench", steps, profileId, start: new Date(Date.now() - 6 * 3_600_000), bulk: true });
    // The long task is one of the list's tasks: the list holds exactly `--tasks`.
    // bulk: 100,000 tasks' ledger rows without per-row triggers, summaries rebuilt once (seed-ui.ts).
    await seedManyTasks(client, { prefix: "bench", count: taskCount - 1, profileId, start: new Date(), bulk: true });
    await client.query("ANALYZE");
    const listed = Number((await client.query<{ n: string }>("SELECT count(*)::text AS n FROM task")).rows[0]?.n);
    await client.end();
    const seedMs = Date.now() - t0;
    progress(
      TAG,
      `seeded ${long.steps} steps (${long.failedSteps} failed, ${long.retriedSteps} retried, ${long.checkpoints} checkpoints) and ${listed} tasks in ${seedMs} ms`,
    );

    const [port, executorPort, modelPort] = [await freePort(), await freePort(), await freePort()];
    progress(TAG, `starting the app on port ${port} (builds first when needed)`);
    app = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        PORT: String(port),
        EXECUTOR_PORT: String(executorPort),
        MODEL_PORT: String(modelPort),
        DATA_DIR: dataDir,
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
        INNGEST_BASE_URL: "",
        INNGEST_SIGNING_KEY: "",
        INNGEST_EVENT_KEY: "",
        NEXT_TELEMETRY_DISABLED: "1",
        CHECKPOINT_DISABLE: "1",
      },
    });
    app.stdout?.on("data", (d: Buffer) => process.stderr.write(`[app] ${d.toString()}`));
    app.stderr?.on("data", (d: Buffer) => process.stderr.write(`[app] ${d.toString()}`));
    const base = `http://127.0.0.1:${port}`;
    await waitForUrl(`${base}/api/health`, 600_000, () => app?.exitCode === null);

    browser = await chromium.launch(chromiumLaunchOptions());
    // The pages need a signed-in user: the first account of the fresh data folder (admin, every role).
    const bootstrap = await browser.newContext();
    const signUp = await bootstrap.request.post(`${base}/api/auth/sign-up/email`, {
      data: { email: "bench@bench.test", password: "bench-ui-password-1", name: "bench" },
    });
    if (!signUp.ok()) throw new Error(`could not sign up the bench user: ${signUp.status()} ${await signUp.text()}`);
    const session = await bootstrap.storageState();
    await bootstrap.close();
    const newContext = async (b: Browser): Promise<BrowserContext> => {
      const ctx = await b.newContext({ viewport: { width: 1440, height: 900 }, storageState: session });
      await ctx.addInitScript({ content: recordFirstRows(ROW_SELECTORS) });
      return ctx;
    };
    const taskUrl = `${base}/tasks/${long.taskId}`;
    const listUrl = `${base}/tasks`;

    // Server cold: the first load of each page since the app started, in a fresh context.
    const firstLoad = async (url: string, selector: string) => {
      const ctx = await newContext(browser!);
      try {
        return await firstMatchMs(await ctx.newPage(), url, selector);
      } finally {
        await ctx.close();
      }
    };
    const pageFirstLoad = await firstLoad(taskUrl, "[data-step-id]");
    const listFirstLoad = await firstLoad(listUrl, "[data-task-id]");
    progress(TAG, `first loads after start: task page ${pageFirstLoad} ms, task list ${listFirstLoad} ms`);

    // Browser cold: each load in a new context (empty HTTP cache).
    const pageCold: number[] = [];
    const listCold: number[] = [];
    for (let i = 0; i < repeat; i++) {
      pageCold.push(await firstLoad(taskUrl, "[data-step-id]"));
      listCold.push(await firstLoad(listUrl, "[data-task-id]"));
    }
    progress(TAG, `cold cache: task page ${pageCold.join(", ")} ms; task list ${listCold.join(", ")} ms`);

    // Warm: one context, one warm-up load each, then the samples.
    const context = await newContext(browser);
    const page = await context.newPage();
    page.on("pageerror", (e) => progress(TAG, `page error: ${e.message}`));
    await firstMatchMs(page, taskUrl, "[data-step-id]");
    await firstMatchMs(page, listUrl, "[data-task-id]");
    const pageSamples: number[] = [];
    const listSamples: number[] = [];
    for (let i = 0; i < repeat; i++) {
      pageSamples.push(await firstMatchMs(page, taskUrl, "[data-step-id]"));
      listSamples.push(await firstMatchMs(page, listUrl, "[data-task-id]"));
    }
    progress(TAG, `warm cache: task page ${pageSamples.join(", ")} ms; task list ${listSamples.join(", ")} ms`);

    // Filtering the long run to its failed steps: click until every row shown is a failed one.
    await firstMatchMs(page, taskUrl, "[data-step-id]");
    const filterStart = Date.now();
    await page.getByRole("button", { name: "failed", exact: true }).click();
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll("[data-step-id]")];
        return rows.length > 0 && rows.every((r) => r.getAttribute("data-status") === "failed");
      },
      undefined,
      { polling: "raf", timeout: 30_000 },
    );
    const filterFailedMs = Date.now() - filterStart;
    const searchMs = await firstMatchMs(page, `${listUrl}?q=incidents&status=completed`, "[data-task-id]");

    const medians = [median(pageSamples), median(listSamples), median(pageCold), median(listCold)];
    // Every load of a page recorded its interactive time: the median over all of them (first, cold and warm).
    const interactiveMs = (url: string) => median(interactive.get(url) ?? []);
    const result = {
      [`taskPage${long.steps}`]: {
        firstRowsMs: median(pageSamples),
        coldFirstRowsMs: median(pageCold),
        firstLoadMs: pageFirstLoad,
        samples: pageSamples,
        coldSamples: pageCold,
        interactiveMs: interactiveMs(taskUrl),
        probeLagMs: median(probeLag.get(taskUrl) ?? []),
        filterFailedMs,
      },
      [`taskList${listed}`]: {
        firstRowsMs: median(listSamples),
        coldFirstRowsMs: median(listCold),
        firstLoadMs: listFirstLoad,
        samples: listSamples,
        coldSamples: listCold,
        interactiveMs: interactiveMs(listUrl),
        probeLagMs: median(probeLag.get(listUrl) ?? []),
        searchMs,
      },
      steps: long.steps,
      tasks: listed,
      seedMs,
      pass: medians.every((m) => m < 1000),
    };
    console.log(JSON.stringify(result));
    return result.pass ? 0 : 1;
  } finally {
    await browser?.close().catch(() => undefined);
    if (app && app.exitCode === null) {
      app.kill("SIGINT");
      await new Promise<void>((r) => {
        const timer = setTimeout(() => {
          app?.kill("SIGKILL");
          r();
        }, 20_000);
        app?.once("exit", () => {
          clearTimeout(timer);
          r();
        });
      });
    }
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

runScript(SCRIPT, main);

/**
 * The CLI's connection to the web app: where it is (LONGHAUL_URL, default http://127.0.0.1:$PORT),
 * the API token it sends (LONGHAUL_TOKEN, else the local admin token of scripts/lib/local-auth.ts),
 * the per-request timeout (LONGHAUL_CLI_TIMEOUT seconds, default 30) and the typed tRPC client, plus
 * the two waits every waiting command shares: `poll` (rides out a restart, scripts/lib/cli-wait.ts)
 * and `waitFor` (a task until it settles or waits for a human). Created once per process.
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../../server/api/root.ts";
import { SETTLED_TASK_STATUSES } from "../../lib/contracts/status.ts";
import { cliToken } from "../lib/local-auth.ts";
import { taskSummaryJson } from "../lib/cli-task.ts";
import { rideOut } from "../lib/cli-wait.ts";

/** How the CLI is invoked, as help texts and usage hints name it. */
export const PROGRAM = "npm run cli --";
/** The web app's URL: LONGHAUL_URL, else this machine at $PORT (default 3000). */
export const baseUrl = process.env.LONGHAUL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const token = cliToken(baseUrl);
/** Seconds each HTTP request may take before the CLI gives up (LONGHAUL_CLI_TIMEOUT, default 30): a frozen database must not hang a script. */
export const timeoutS = Number(process.env.LONGHAUL_CLI_TIMEOUT ?? 30);
/** fetch with the request timeout: an app that accepts the connection but never answers ends as a TimeoutError. */
export const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutS * 1000)]) : AbortSignal.timeout(timeoutS * 1000) });
/** The API client every command calls, authenticated with the CLI's token (none: the API answers UNAUTHORIZED). */
export const api = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: `${baseUrl}/api/trpc`,
      transformer: superjson,
      fetch: timedFetch,
      headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
    }),
  ],
});
/** The API client's type, for the command modules' parameters. */
export type Api = typeof api;

const WAIT_DONE: ReadonlySet<string> = new Set(SETTLED_TASK_STATUSES);

/** A task as `status` prints it (scripts/lib/cli-task.ts taskSummaryJson). */
export async function summary(taskId: string) {
  return taskSummaryJson(await api.task.get.query({ taskId }));
}

/** Calls `call`, riding out a restart of the web app or its database (cli-wait.ts rideOut); `goesOn` says what goes on meanwhile. */
export const poll = <T>(call: () => Promise<T>, goesOn: string): Promise<T> => rideOut(call, { baseUrl, goesOn });

/**
 * Follows a task every 500 ms, printing a progress line to stderr when status, steps or facts
 * change, until it settles or waits for a human (SETTLED_TASK_STATUSES); returns its summary then.
 */
export async function waitFor(taskId: string) {
  let last = "";
  for (;;) {
    const s = await poll(() => summary(taskId), "the task goes on");
    const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
    const line = `${s.status} · ${plural(s.steps, "step")} · ${plural(s.facts, "fact")}`;
    if (line !== last) process.stderr.write(`  ${line}\n`);
    last = line;
    if (WAIT_DONE.has(s.status)) return s;
    await new Promise((r) => setTimeout(r, 500));
  }
}

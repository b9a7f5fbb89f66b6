/**
 * How the CLI's waiting commands (`launch --wait`, `eval run --wait`, a batch `resume`/`cancel
 * --wait`, and any later poller) ride out a restart of the web app or of its database: one
 * mechanism, so each of them keeps its verdict for the script or CI job that waits on it. The work
 * goes on without the CLI (a task, an eval run, a batch run on the server), so a few seconds without
 * an answer are no reason to report a failure — a script would relaunch and pay twice, or a CI gate
 * get no verdict at all.
 */
import { TRPCClientError } from "@trpc/client";
import { terminalSafe } from "./cli-text.ts";

/** How long a wait keeps trying while the web app cannot be reached or answers 5xx (a restart by the supervisor takes seconds). */
export const WAIT_UNREACHABLE_MS = 120_000;
/** Pause between two tries while the app is away (ms). */
export const WAIT_RETRY_MS = 1_000;

/** True when the error (or a cause in its chain) is the request timeout (LONGHAUL_CLI_TIMEOUT): the app took the request but did not answer. */
export function timedOut(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if ((e as { name?: string }).name === "TimeoutError") return true;
  return false;
}

/** True when the error (or a cause in its chain, e.g. inside a TRPCClientError) is a failed connection or the request timeout; never for an answer of the API. */
export function unreachable(error: unknown): boolean {
  if (error instanceof TRPCClientError && error.data !== undefined) return false;
  if (timedOut(error)) return true;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (
      /fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|socket hang up|other side closed/.test(`${e.message} ${(e as { code?: string }).code ?? ""}`)
    )
      return true;
  }
  return false;
}

/**
 * True for an answer that says the server is in trouble for now, not that the request is wrong:
 * an API error with HTTP status 5xx (a database outage answered 503, a restart), or a reply that is
 * not the API's at all (a proxy's HTML error page while the app restarts: the tRPC client cannot
 * parse it and has no status).
 */
export function serverTrouble(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const status = (error.data as { httpStatus?: number } | undefined)?.httpStatus;
  if (typeof status === "number") return status >= 500;
  return error.data === undefined && !unreachable(error) && /JSON|Unexpected token|Unable to transform response/i.test(error.message);
}

/** What {@link rideOut} needs besides the call (tests pass their own clock). */
export interface RideOutOptions {
  /** The app's URL, for the message. */
  baseUrl: string;
  /** What goes on while the CLI waits, for the message (e.g. "the task goes on"). */
  goesOn: string;
  /** Where progress lines go (default: stderr). */
  log?: (line: string) => void;
  limitMs?: number;
  retryMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Calls `call` until it answers. While the web app cannot be reached (refused or reset connection,
 * the request timeout) or answers "in trouble" (serverTrouble: HTTP 5xx, a reply that is not the
 * API's), it tries again every `retryMs` for up to `limitMs` (default WAIT_UNREACHABLE_MS) since the
 * first failure, saying once on `log` why it waits and once that the app answers again. Any other
 * error (the API refusing the request: 4xx) is thrown at once.
 * @returns what `call` resolved to.
 * @throws the last error once `limitMs` passed without an answer, and any other error at once.
 */
export async function rideOut<T>(call: () => Promise<T>, options: RideOutOptions): Promise<T> {
  const {
    baseUrl,
    goesOn,
    log = (line) => process.stderr.write(`${line}\n`),
    limitMs = WAIT_UNREACHABLE_MS,
    retryMs = WAIT_RETRY_MS,
    now = Date.now,
    sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
  } = options;
  let since: number | null = null;
  for (;;) {
    try {
      const answer = await call();
      if (since !== null) log(`  (Longhaul answers again after ${Math.round((now() - since) / 1000)} s)`);
      return answer;
    } catch (error) {
      if (!unreachable(error) && !serverTrouble(error)) throw error;
      if (since === null) {
        since = now();
        const why = unreachable(error)
          ? `cannot reach Longhaul at ${baseUrl}`
          : `Longhaul answers ${error instanceof Error ? terminalSafe(error.message.slice(0, 120)) : "an error"} (it or its database may be restarting)`;
        log(`  (${why}; ${goesOn} — retrying for up to ${Math.round(limitMs / 1000)} s)`);
      } else if (now() - since > limitMs) throw error;
      await sleep(retryMs);
    }
  }
}

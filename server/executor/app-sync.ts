import type { PrismaClient } from "../db/client.ts";
import { errorText } from "./engine/context.ts";
import type { Executor } from "./engine/executor.ts";
import type { ExecutorLogger } from "./logger.ts";
import type { ExecutorMode } from "./mode.ts";
import { registerApp, RegistrationRefusedError, type FunctionConfig } from "./registry.ts";
import { canonicalJson, responseSignatureProblem, signBody } from "./util.ts";

/** The apps a sync registered: the app id and its function ids (both empty when the app registered out of band instead). */
export interface SyncResult {
  appId: string;
  functionIds: string[];
}

/**
 * In-band sync of one serve() URL (docs/INNGEST-PROTOCOL.md §2.2): a signed `PUT appUrl` with
 * `x-inngest-sync-kind: in_band`; the app's reply (`{app_id, url, sdk, functions}`) is registered
 * all-or-nothing and the engine woken. An app whose SDK refuses in-band sync
 * (`INNGEST_ALLOW_IN_BAND_SYNC=0`) registers out of band instead: that is logged and resolves with
 * empty ids.
 * @returns the sync function: `(appUrl) => {appId, functionIds}`, which rejects with Error when the
 * app is unreachable, answers other than 200, or (signed mode) its reply's signature is missing or
 * wrong — an unsigned or forged reply would register whatever URLs it names — and with
 * RegistrationRefusedError when a function uses an option the executor refuses.
 */
export function createInBandSync({
  db,
  engine,
  mode,
  logger,
}: {
  db: PrismaClient;
  engine: Executor;
  mode: ExecutorMode;
  logger: ExecutorLogger;
}): (appUrl: string) => Promise<SyncResult> {
  const { dev, signingKey, serverKind } = mode;
  return async (appUrl) => {
    const body = canonicalJson({ url: appUrl });
    const res = await fetch(appUrl, {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        "x-inngest-sync-kind": "in_band",
        "x-inngest-server-kind": serverKind,
        ...(signingKey ? { "x-inngest-signature": signBody(body, signingKey) } : {}),
      },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`sync of ${appUrl}: HTTP ${res.status} ${text.slice(0, 300)}`);
    // Signed mode: the SDK signs its in-band sync reply like any response to a signed request; an
    // unsigned or forged one would register whatever URLs it names, so it is refused (the sync loop retries).
    const problem =
      !dev && signingKey && res.headers.get("x-inngest-sync-kind") === "in_band"
        ? responseSignatureProblem(res.headers.get("x-inngest-signature"), text, signingKey)
        : undefined;
    if (problem) throw new Error(`sync of ${appUrl}: ${problem}; the reply was refused (is INNGEST_SIGNING_KEY the same in the app and the executor?)`);
    const reply = JSON.parse(text) as { app_id?: string; functions?: FunctionConfig[]; sdk?: string; url?: string };
    if (res.headers.get("x-inngest-sync-kind") !== "in_band" || !reply.app_id || !Array.isArray(reply.functions)) {
      // The SDK refused in-band sync (INNGEST_ALLOW_IN_BAND_SYNC=0) and registered out of band instead.
      logger.info(`sync of ${appUrl}: the app answered out-of-band (${text.slice(0, 200)})`);
      return { appId: "", functionIds: [] };
    }
    const result = await registerApp(db, { appId: reply.app_id, url: reply.url ?? appUrl, sdk: reply.sdk ?? "", functions: reply.functions });
    logger.info(`synced app ${reply.app_id} from ${appUrl} (in band): ${result.functionIds.join(", ")}`, { appId: reply.app_id });
    engine.wake();
    return { appId: reply.app_id, functionIds: result.functionIds };
  };
}

/**
 * Keeps `appUrls` synced in the background: each is synced at once, retried every `retryMs`
 * (default 2 s) until it answers (every 30 s while its registration is refused, a config error no retry soon fixes), then
 * re-synced every `resyncMs`. Each failure is logged as a warning.
 * @returns `stop()`, which cancels every pending sync (one in flight finishes, and schedules nothing).
 */
export function startSyncLoops({
  appUrls,
  resyncMs,
  retryMs = 2000,
  sync,
  logger,
}: {
  appUrls: string[];
  resyncMs: number;
  retryMs?: number;
  sync: (appUrl: string) => Promise<SyncResult>;
  logger: ExecutorLogger;
}): { stop: () => void } {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const syncLoop = (appUrl: string, delayMs: number): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      sync(appUrl).then(
        () => !stopped && syncLoop(appUrl, resyncMs),
        (error: unknown) => {
          logger.warn(`sync of ${appUrl} failed: ${errorText(error)}; retrying`);
          if (!stopped) syncLoop(appUrl, error instanceof RegistrationRefusedError ? 30_000 : retryMs);
        },
      );
    }, delayMs);
    timers.add(t);
  };
  for (const appUrl of appUrls) syncLoop(appUrl, 0);
  return {
    stop: () => {
      stopped = true;
      for (const t of timers) clearTimeout(t);
    },
  };
}

import type { PrismaClient } from "../db/client.ts";
import { checkCel } from "./cel.ts";
import { parseDurationMs } from "./util.ts";
import { executorFunctionConfigJson, type FunctionConfig } from "./json-columns.ts";

/** A function config entry as the SDK registers it (its type lives with the column that stores it). */
export type { FunctionConfig };

/** Default retry count and cap (Go `consts.DefaultRetryCount` = 4, `MaxRetries` = 20; §2.2). */
export const DEFAULT_RETRIES = 4;
export const MAX_RETRIES = 20;

/** Options the executor implements; anything else present in a config is refused. */
const IMPLEMENTED = new Set(["id", "name", "triggers", "steps", "idempotency", "cancel", "concurrency"]);
/** Options known to exist in Inngest but not implemented here (docs/INNGEST-PROTOCOL.md §7.1 item 1). */
const REFUSED_REASON: Record<string, string> = {
  batchEvents: "event batching is not implemented",
  debounce: "debounce is not implemented",
  throttle: "throttle is not implemented",
  priority: "priority is not implemented",
  singleton: "singleton is not implemented",
  rateLimit: "rateLimit is not implemented",
  timeouts: "timeouts.start/finish are not implemented",
};

/**
 * Internal events (`inngest/…`) the executor emits, so a function may be triggered by them; any other
 * `inngest/` trigger would never fire here (inngest-js `internalEvents`: `inngest/deferred.schedule`
 * of `createDefer`, `inngest/scheduled.timer`, `inngest/http.request`).
 */
const EMITTED_INTERNAL_EVENTS = new Set(["inngest/function.failed", "inngest/function.finished", "inngest/function.cancelled", "inngest/function.invoked"]);
const NEVER_EMITTED_REASON: Record<string, string> = {
  "inngest/deferred.schedule": "defer() / createDefer are not implemented, so this event is never emitted",
  "inngest/scheduled.timer": "cron is not implemented, so this event is never emitted",
  "inngest/http.request": "Durable Endpoints are not implemented, so this event is never emitted",
};

/**
 * Checks one registered function config and returns every problem found (empty = accepted).
 * Refused (loudly, never ignored): the options in REFUSED_REASON, any unknown top-level key, cron
 * triggers, wildcard event triggers, triggers on `inngest/` events the executor never emits
 * (defer's `inngest/deferred.schedule`, …), non-http runtimes, concurrency scopes other than `fn`,
 * more than 2 concurrency entries, retries outside 0..20, and CEL expressions that do not parse.
 * Each problem names the function and the option.
 */
export function validateFunctionConfig(fn: FunctionConfig): string[] {
  const problems: string[] = [];
  const where = `function "${String(fn?.id)}"`;
  if (!fn || typeof fn.id !== "string" || !fn.id) return ["a function config without an id"];
  for (const [key, value] of Object.entries(fn)) {
    if (value === undefined || value === null) continue;
    if (IMPLEMENTED.has(key)) continue;
    problems.push(`${where}: option "${key}" refused: ${REFUSED_REASON[key] ?? "unknown option, not implemented by the embedded executor"}`);
  }
  const triggers = fn.triggers ?? [];
  for (const t of triggers) {
    if (t.cron !== undefined) problems.push(`${where}: cron trigger "${t.cron}" refused: cron triggers are not implemented`);
    else if (typeof t.event !== "string" || !t.event) problems.push(`${where}: trigger without an event`);
    else if (t.event.includes("*")) problems.push(`${where}: wildcard trigger "${t.event}" refused: not implemented`);
    else if (t.event.startsWith("inngest/") && !EMITTED_INTERNAL_EVENTS.has(t.event)) {
      problems.push(`${where}: trigger "${t.event}" refused: ${NEVER_EMITTED_REASON[t.event] ?? "an internal event the embedded executor never emits"}`);
    }
    if (t.expression !== undefined) {
      const err = checkCel(t.expression);
      if (err) problems.push(`${where}: trigger expression does not parse: ${err}`);
    }
  }
  const step = fn.steps?.step;
  if (!step?.runtime?.url) problems.push(`${where}: steps.step.runtime.url missing`);
  else if (step.runtime.type && step.runtime.type !== "http") problems.push(`${where}: runtime "${step.runtime.type}" refused: only http is implemented`);
  const retries = step?.retries?.attempts;
  if (retries !== undefined && (!Number.isInteger(retries) || retries < 0 || retries > MAX_RETRIES)) {
    problems.push(`${where}: retries ${String(retries)} outside 0..${MAX_RETRIES}`);
  }
  if (fn.idempotency !== undefined) {
    const err = typeof fn.idempotency === "string" ? checkCel(fn.idempotency) : "not a string";
    if (err) problems.push(`${where}: idempotency expression: ${err}`);
  }
  for (const c of fn.cancel ?? []) {
    if (!c.event) problems.push(`${where}: cancelOn without event`);
    if (c.if !== undefined) {
      const err = checkCel(c.if);
      if (err) problems.push(`${where}: cancelOn if expression: ${err}`);
    }
    if (c.timeout !== undefined && parseDurationMs(c.timeout) === undefined) problems.push(`${where}: cancelOn timeout "${c.timeout}" unparseable`);
  }
  const conc = normalizeConcurrency(fn.concurrency);
  if (conc.length > 2) problems.push(`${where}: more than 2 concurrency entries`);
  for (const c of conc) {
    if (!Number.isInteger(c.limit) || c.limit < 0) problems.push(`${where}: concurrency limit ${String(c.limit)} invalid`);
    if (c.scope && c.scope !== "fn") problems.push(`${where}: concurrency scope "${c.scope}" refused: only "fn" is implemented`);
    if (c.key !== undefined) {
      const err = checkCel(c.key);
      if (err) problems.push(`${where}: concurrency key expression: ${err}`);
    }
  }
  return problems;
}

/** Normalises the `concurrency` option (number · object · array) into a list of `{limit, key?, scope?}`. */
export function normalizeConcurrency(value: FunctionConfig["concurrency"]): { limit: number; key?: string; scope?: string }[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "number") return [{ limit: value }];
  return Array.isArray(value) ? value : [value];
}

/** Error raised when a sync contains options the executor does not implement. */
export class RegistrationRefusedError extends Error {
  constructor(readonly problems: string[]) {
    super(`registration refused: ${problems.join("; ")}`);
    this.name = "RegistrationRefusedError";
  }
}

/**
 * Persists an app and its function set (all or nothing): validates every config first and throws
 * {@link RegistrationRefusedError} listing all problems; otherwise upserts the app, replaces its
 * functions (a re-sync of the same app replaces its set, Appendix "POST /fn/register") and returns
 * whether anything changed.
 */
export async function registerApp(
  db: PrismaClient,
  { appId, url, sdk, functions }: { appId: string; url: string; sdk: string; functions: FunctionConfig[] },
): Promise<{ modified: boolean; functionIds: string[] }> {
  const problems = functions.flatMap((fn) => validateFunctionConfig(fn));
  if (problems.length) throw new RegistrationRefusedError(problems);
  return db.$transaction(async (tx) => {
    const before = await tx.executorFunction.findMany({ where: { appId }, select: { id: true, config: true } });
    await tx.executorApp.upsert({ where: { id: appId }, create: { id: appId, url, sdk }, update: { url, sdk, syncedAt: new Date() } });
    const ids = functions.map((f) => f.id);
    await tx.executorFunction.deleteMany({ where: { appId, id: { notIn: ids } } });
    for (const fn of functions) {
      const data = {
        appId,
        name: fn.name ?? fn.id,
        config: executorFunctionConfigJson.encode(fn),
        events: (fn.triggers ?? []).flatMap((t) => (t.event ? [t.event] : [])),
        url: fn.steps!.step!.runtime!.url!,
        retries: fn.steps?.step?.retries?.attempts ?? DEFAULT_RETRIES,
      };
      await tx.executorFunction.upsert({ where: { id: fn.id }, create: { id: fn.id, ...data }, update: data });
    }
    const prev = new Map(before.map((f) => [f.id, JSON.stringify(f.config)]));
    const modified = before.length !== functions.length || functions.some((f) => prev.get(f.id) !== JSON.stringify(f));
    return { modified, functionIds: ids };
  });
}

/**
 * Crash points for tests and the chaos script: `LONGHAUL_CRASH_AT=<point>[,<point>…]` (optionally
 * `<point>@<n>` = crash the n-th time the point is reached, 1-based) makes the process exit at once
 * with code 137, skipping every cleanup, as a `kill -9` would. Off unless the variable is set.
 *
 * Points (add new ones here with where they fire):
 * - `executor:after-step-saved`      executor, after a StepRun (or an async checkpoint's steps) was committed, before the next request
 * - `executor:before-step-saved`     executor, a StepRun response arrived but is not yet committed
 * - `executor:checkpoint-received`   executor, an async checkpoint POST arrived, before persisting it
 * - `tool:after-side-effect`         web, a side-effecting tool committed its effect, before the step returns
 * - `tool:external-after-call`       web, an external effect's call returned, before its result is recorded in the ledger
 * - `model:after-call-recorded`      web, a model call's ledger row was written, before its step returns
 * - `escalation:apply-before-commit` web, applying a decision: every write made inside its transaction, before the last one and the commit
 * - `escalation:applied-before-start` web, a decision applied in the handler's request (committed), before its resumed run's start is sent
 */
import { env } from "./env.ts";

let armed: Map<string, number> | undefined;
/** The armed points from `LONGHAUL_CRASH_AT` (validated by server/env.ts), read once. */
function armedPoints(): Map<string, number> {
  if (armed) return armed;
  armed = new Map();
  for (const raw of (env().LONGHAUL_CRASH_AT ?? "").split(",")) {
    const spec = raw.trim();
    if (!spec) continue;
    const [name, nth] = spec.split("@");
    armed.set(name!, nth ? Number(nth) : 1);
  }
  return armed;
}
const seen = new Map<string, number>();

/** Exits the process with code 137 if `name` is armed and reached for the armed n-th time. */
export function crashPoint(name: string): void {
  const target = armedPoints().get(name);
  if (target === undefined) return;
  const count = (seen.get(name) ?? 0) + 1;
  seen.set(name, count);
  if (count === target) {
    process.stderr.write(`[fault-injection] crash at ${name} (#${count})\n`);
    process.exit(137);
  }
}

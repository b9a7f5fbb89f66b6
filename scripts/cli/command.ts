/**
 * What every command module of the CLI shares: the `CliCommand` shape the dispatcher (scripts/cli.ts)
 * runs, the keys under which a command hands back an exit code or raw stdout, and the flags several
 * commands declare alike (`--idempotency-key`, dollar amounts). Pure, no I/O.
 */
import type { CommandSpec, FlagValues } from "../lib/cli-args.ts";

/**
 * One command: its spec (name, positionals, flags, help) and what it does. `run` returns the object
 * printed as the last stdout line (JSON); it may carry `[EXIT]` (an exit code other than 0) or
 * `[RAW]` (text printed as stdout instead of the JSON line). It throws UsageError for bad usage
 * (exit 2) and any other error for a failed command (exit 1).
 */
export interface CliCommand {
  spec: CommandSpec;
  run: (values: FlagValues, positionals: string[]) => Promise<unknown>;
}

/** Key under which a command hands back the exit code of a task outcome (not printed: JSON.stringify skips symbols). */
export const EXIT = Symbol("exit code");
/** Key under which a command hands back text to print as stdout instead of the JSON line (`eval report --format csv`). */
export const RAW = Symbol("raw stdout");

/**
 * `--idempotency-key`: the caller's key for the action. Sending the same key again (a retry after a
 * timeout, a script run twice) acts once and answers with the first result (server/db/request-keys.ts).
 */
export const KEY_FLAG: CommandSpec["flags"] = {
  "idempotency-key": {
    type: "string",
    value: "<key>",
    description: "8–100 characters (a UUID fits); the same key again acts once and answers with the first result",
  },
};
/** The key flag's value as an input field, or nothing. */
export const keyOf = (values: FlagValues) => (typeof values["idempotency-key"] === "string" ? { idempotencyKey: values["idempotency-key"] } : {});

/** A dollar amount as typed (`0.50`, `-1`): a number, so the API schema's range message names the limit; anything else is "not a number". */
const USD_TEXT = /^\s*-?\d+(\.\d+)?\s*$/;

/** A dollar flag's text as the number sent to the API: NaN for anything but a plain decimal, so the schema refuses it naming the flag. */
export function usdValue(text: string): number {
  return USD_TEXT.test(text) ? Number(text) : Number.NaN;
}

import { parse } from "@marcbachmann/cel-js";

type Compiled = ReturnType<typeof parse>;
const cache = new Map<string, Compiled | Error>();

/** Outcome of evaluating a CEL condition: a boolean match, or an error message (a non-match). */
export type CelOutcome = { match: boolean; error?: string };

/**
 * Evaluates a CEL boolean expression (`if`, trigger `expression`, cancel `if`) against `context`
 * (e.g. `{event, async}`) with `@marcbachmann/cel-js` (docs/STACK.md pitfall 10; Go uses cel-go,
 * `pkg/expressions`).
 *
 * Rule (documented and tested): an evaluation error — most often a missing key such as
 * `event.data.function_id` when the event has no such field, or a type mismatch — is a
 * **non-match**, never a crash; the error text is returned for logging. A non-boolean result is a
 * non-match too. A parse error is also a non-match here (expressions are checked at registration
 * with {@link checkCel}).
 */
export function evalCel(expression: string, context: Record<string, unknown>): CelOutcome {
  let compiled = cache.get(expression);
  if (!compiled) {
    try {
      compiled = parse(expression);
    } catch (error) {
      compiled = error instanceof Error ? error : new Error(String(error));
    }
    if (cache.size > 5000) cache.clear();
    cache.set(expression, compiled);
  }
  if (compiled instanceof Error) return { match: false, error: compiled.message };
  try {
    const result: unknown = compiled(context);
    return { match: result === true };
  } catch (error) {
    return { match: false, error: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  }
}

/**
 * Evaluates a CEL expression for its value (idempotency and concurrency keys). Returns undefined
 * on any error (missing key → no key).
 */
export function evalCelValue(expression: string, context: Record<string, unknown>): unknown {
  try {
    return parse(expression)(context);
  } catch {
    return undefined;
  }
}

/** Returns an error message when `expression` does not parse as CEL, else undefined. */
export function checkCel(expression: string): string | undefined {
  try {
    parse(expression);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0] : String(error);
  }
}

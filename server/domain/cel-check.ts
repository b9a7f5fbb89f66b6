import { parse } from "@marcbachmann/cel-js";

/**
 * Evaluates a CEL boolean expression of an eval check against `context` with `@marcbachmann/cel-js`
 * (the library the executor uses for Inngest expressions, docs/STACK.md pitfall 10), with the same rule
 * as server/executor/cel.ts: a parse or evaluation error (a missing key, a type mismatch) or a
 * non-boolean result is a non-match with the error's first line, never a crash.
 */
export function evalCheckExpression(expression: string, context: Record<string, unknown>): { match: boolean; error?: string } {
  try {
    return { match: parse(expression)(context) === true };
  } catch (error) {
    return { match: false, error: error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error) };
  }
}

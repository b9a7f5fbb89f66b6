/**
 * The raw process environment, for the few readers that must see a variable's current value on
 * every call (policies a test or an operator may change while a process runs) or that take a
 * `source` for tests. Still the one place server code reaches `process.env`; the values were
 * validated at start by `parseEnv` in server/env.ts (scripts/start.ts), and each reader ignores what it cannot use.
 * Its own module so that modules server/env.ts itself imports (the egress policy) can use it without a cycle.
 */
export function rawEnv(): Record<string, string | undefined> {
  return process.env;
}

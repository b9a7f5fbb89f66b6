/**
 * The flags both chaos modes share (scripts/chaos.ts, scripts/chaos-stack.ts): how many kills, the
 * seed, the package limits drawn for the tasks, the gaps before kills, the deadline — each mode with
 * its own defaults — and the rules between them.
 */
import type { ScriptValues } from "./cli-args.ts";

/** Defaults (and the deadline's range) of one chaos mode. */
export interface ChaosDefaults {
  kills: number;
  minLimit: number;
  maxLimit: number;
  minGapMs: number;
  deadlineS: { min: number; max: number; default: number };
}

/** The shared flag specs, for a `defineScript` spec's `flags`. */
export function chaosFlags(d: ChaosDefaults) {
  return {
    tasks: { type: "string", value: "<n>", description: "license-audit demo tasks launched first", int: { min: 1, max: 50 }, default: 4 },
    kills: { type: "string", value: "<n>", description: "kills in all", int: { min: 0, max: 1000 }, default: d.kills },
    seed: { type: "string", value: "<n>", description: "seed of the kill order, moments and limits", int: { min: 0, max: 2 ** 31 }, default: 1 },
    "min-limit": { type: "string", value: "<n>", description: "smallest package limit of a license audit", int: { min: 1, max: 500 }, default: d.minLimit },
    "max-limit": { type: "string", value: "<n>", description: "largest package limit, at least --min-limit", int: { min: 1, max: 500 }, default: d.maxLimit },
    "min-gap-ms": { type: "string", value: "<ms>", description: "shortest gap before a kill", int: { min: 0, max: 600_000 }, default: d.minGapMs },
    "max-gap-ms": {
      type: "string",
      value: "<ms>",
      description: "longest gap before a kill, at least --min-gap-ms",
      int: { min: 0, max: 600_000 },
      default: 6_000,
    },
    "deadline-s": {
      type: "string",
      value: "<s>",
      description: "seconds every task has to end",
      int: { min: d.deadlineS.min, max: d.deadlineS.max },
      default: d.deadlineS.default,
    },
  } as const;
}

/** The rules between the shared flags: a problem line naming the flags, or null. */
export function chaosFlagProblems(v: ScriptValues<ReturnType<typeof chaosFlags>>): (string | null)[] {
  return [
    v["max-limit"] < v["min-limit"] ? `--max-limit: must be at least --min-limit (${v["min-limit"]}), got ${v["max-limit"]}` : null,
    v["max-gap-ms"] < v["min-gap-ms"] ? `--max-gap-ms: must be at least --min-gap-ms (${v["min-gap-ms"]}), got ${v["max-gap-ms"]}` : null,
  ];
}

/**
 * `npx tsx scripts/bench-json-decode.ts [--facts 2000] [--fact-bytes 400] [--steps 1000] [--checkpoints 200] [--rounds 30]`
 * — what reading JSON columns through their codecs (server/db/json-columns.ts) costs on the biggest
 * reads, beside what the driver already pays to parse the same JSON text (`JSON.parse`, the floor
 * of any read). No database: the codecs' `decode` on plain data, as the readers call it.
 * - `checkpoint`: one checkpoint as a resume preview, a fork or an escalation card reads it — a
 *   working set of `--facts` facts of ~`--fact-bytes` bytes of JSON each, `--steps` completed
 *   steps, 200 committed effects and its budgets;
 * - `list`: the checkpoint list of a task with `--checkpoints` checkpoints, each with that working
 *   set (the list decodes it to count the facts) and its budgets;
 * - `undos`: an escalation card's 50 undo steps (arguments and output).
 * Prints progress to stderr and one JSON line last: per read, the input's JSON size in bytes and
 * the p50 / p95 milliseconds of `decode` and of `JSON.parse` of its text.
 */
import { performance } from "node:perf_hooks";
import {
  checkpointBudgetsUsedJson,
  checkpointCompletedStepsJson,
  checkpointSideEffectsJson,
  checkpointWorkingSetJson,
  undoStepArgumentsJson,
  undoStepOutputJson,
} from "../server/db/json-columns.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

const SCRIPT = defineScript({
  program: "npx tsx scripts/bench-json-decode.ts",
  summary: "What decoding JSON columns through their codecs costs on the biggest reads, beside JSON.parse of the same text.",
  flags: {
    facts: { type: "string", value: "<n>", description: "facts in a checkpoint's working set", int: { min: 1, max: 1_000_000 }, default: 2000 },
    "fact-bytes": { type: "string", value: "<bytes>", description: "JSON size of one fact's value", int: { min: 8, max: 1_000_000 }, default: 400 },
    steps: { type: "string", value: "<n>", description: "completed steps a checkpoint carries", int: { min: 0, max: 1_000_000 }, default: 1000 },
    checkpoints: { type: "string", value: "<n>", description: "checkpoints in the listed task", int: { min: 1, max: 100_000 }, default: 200 },
    rounds: { type: "string", value: "<n>", description: "timed rounds per read (after 3 warm-up rounds)", int: { min: 1, max: 100_000 }, default: 30 },
  },
  examples: ["npx tsx scripts/bench-json-decode.ts --facts 2000 --fact-bytes 400 --checkpoints 200"],
});
const values = parseScriptArgs(SCRIPT);

/** A fact value of about `bytes` bytes of JSON: a nested object of strings and numbers, like a recorded finding. */
function factValue(i: number, bytes: number): unknown {
  const note = "x".repeat(Math.max(0, bytes - 60));
  return { id: i, source: `file-${i}.json`, ok: i % 3 !== 0, note, tags: ["a", "b"] };
}
const workingSet = Object.fromEntries(Array.from({ length: values.facts }, (_, i) => [`fact:${i}`, factValue(i, values["fact-bytes"])]));
const completedSteps = Array.from({ length: values.steps }, (_, i) => ({ stepId: `tool-${i}-0`, tool: "record_fact", summary: `recorded fact:${i}` }));
const sideEffects = Array.from({ length: 200 }, (_, i) => ({
  tool: "send_email",
  stepId: `tool-${i}-1`,
  idempotencyKey: `key-${i}`,
  result: { messageId: `m-${i}` },
}));
const budgetsUsed = { steps: 1200, tokens: 4_000_000, costUsd: 12.5 };
const undos = Array.from({ length: 50 }, (_, i) => ({
  arguments: { undone: "approve", decidedBy: `h${i}`, decidedAt: new Date(0).toISOString(), guidance: null, applyAfter: new Date(0).toISOString() },
  output: { undoneBy: `h${i}`, undoneAt: new Date(0).toISOString() },
}));

interface Read {
  name: string;
  /** The stored JSON texts the read parses (one per column value). */
  texts: string[];
  /** The read's decodes over the parsed values (same order as `texts`). */
  decode(parsed: unknown[]): void;
}
const reads: Read[] = [
  {
    name: "checkpoint",
    texts: [workingSet, completedSteps, sideEffects, budgetsUsed].map((v) => JSON.stringify(v)),
    decode: ([ws, cs, se, bu]) => {
      checkpointWorkingSetJson.decode(ws, "cp");
      checkpointCompletedStepsJson.decode(cs, "cp");
      checkpointSideEffectsJson.decode(se, "cp");
      checkpointBudgetsUsedJson.decode(bu, "cp");
    },
  },
  {
    name: "list",
    texts: Array.from({ length: values.checkpoints }, () => [JSON.stringify(workingSet), JSON.stringify(budgetsUsed)]).flat(),
    decode: (parsed) => {
      let facts = 0;
      for (let i = 0; i < parsed.length; i += 2) {
        facts += Object.keys(checkpointWorkingSetJson.decode(parsed[i], "cp")).length;
        checkpointBudgetsUsedJson.decode(parsed[i + 1], "cp");
      }
      if (facts !== values.facts * values.checkpoints) throw new Error(`counted ${facts} facts`);
    },
  },
  {
    name: "undos",
    texts: undos.flatMap((u) => [JSON.stringify(u.arguments), JSON.stringify(u.output)]),
    decode: (parsed) => {
      for (let i = 0; i < parsed.length; i += 2) {
        undoStepArgumentsJson.decode(parsed[i], "step");
        undoStepOutputJson.decode(parsed[i + 1], "step");
      }
    },
  },
];

/** p50 and p95 of `times` in ms, one decimal place below 10 ms, two below 1 ms. */
function quantiles(times: number[]): { p50: number; p95: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const round = (ms: number) => (ms < 1 ? Math.round(ms * 100) / 100 : Math.round(ms * 10) / 10);
  return { p50: round(at(0.5)), p95: round(at(0.95)) };
}

const result: Record<string, { bytes: number; decodeMsP50: number; decodeMsP95: number; parseMsP50: number; parseMsP95: number }> = {};
for (const read of reads) {
  const parseTimes: number[] = [];
  const decodeTimes: number[] = [];
  for (let round = 0; round < values.rounds + 3; round++) {
    const t0 = performance.now();
    const parsed = read.texts.map((t) => JSON.parse(t) as unknown);
    const t1 = performance.now();
    read.decode(parsed);
    const t2 = performance.now();
    if (round >= 3) {
      parseTimes.push(t1 - t0);
      decodeTimes.push(t2 - t1);
    }
  }
  const bytes = read.texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const decode = quantiles(decodeTimes);
  const parse = quantiles(parseTimes);
  result[read.name] = { bytes, decodeMsP50: decode.p50, decodeMsP95: decode.p95, parseMsP50: parse.p50, parseMsP95: parse.p95 };
  console.error(`${read.name}: ${bytes} bytes of JSON — decode p50 ${decode.p50} ms (p95 ${decode.p95}), JSON.parse p50 ${parse.p50} ms (p95 ${parse.p95})`);
}
console.log(
  JSON.stringify({
    facts: values.facts,
    factBytes: values["fact-bytes"],
    steps: values.steps,
    checkpoints: values.checkpoints,
    rounds: values.rounds,
    ...result,
  }),
);

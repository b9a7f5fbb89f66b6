import { z } from "zod";
import { MAX_FACT_KEY_LENGTH, MAX_FACT_VALUE_BYTES } from "../../lib/contracts/limits.ts";
import type { JsonValue } from "./ledger.ts";
import { utf8Bytes } from "./limits.ts";
import { defineTool } from "./types.ts";
import { factValueJson } from "../db/json-columns.ts";

/** Largest fact value, bytes of JSON (lib/contracts/limits.ts: shared with launches and decisions' fact edits). */
export const FACT_VALUE_MAX_BYTES = MAX_FACT_VALUE_BYTES;

export const recordFactArgsSchema = z.strictObject({
  key: z.string().min(1).max(MAX_FACT_KEY_LENGTH).describe('Fact key (1–200 characters), e.g. "package:left-pad"'),
  value: z
    .unknown()
    .check((ctx) => {
      if (ctx.value === undefined) {
        ctx.issues.push({ code: "custom", input: ctx.value, message: "required (any JSON value)" });
        return;
      }
      const bytes = utf8Bytes(JSON.stringify(ctx.value));
      if (bytes > FACT_VALUE_MAX_BYTES) {
        ctx.issues.push({ code: "custom", input: ctx.value, message: `must be ≤ ${FACT_VALUE_MAX_BYTES} bytes serialised as JSON, got ${bytes}` });
      }
    })
    .describe("Any JSON value, at most 16 KiB serialised"),
});
export type RecordFactArgs = z.output<typeof recordFactArgsSchema>;

export interface RecordFactOutput {
  key: string;
  recorded: true;
  previous: JsonValue | null;
}

/**
 * `record_fact` (docs/CONTRACTS.md): puts `key → value` in the task's working set. The row is upserted by
 * (runId, stepId, key), so a re-executed step never duplicates it; every other fact of the task with
 * the same key is marked superseded. `previous` is the value of the latest earlier fact with that key
 * (null when none), the same on re-execution.
 */
export const recordFactTool = defineTool({
  name: "record_fact",
  description: "Record a fact in the task's working set (key → JSON value). Recording an existing key replaces its value and returns the previous one.",
  parameters: recordFactArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<RecordFactOutput> {
    const value = factValueJson.encode(args.value);
    return ctx.prisma.$transaction(async (tx) => {
      // Serialise writers of one (task, key) so exactly one fact stays current.
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`fact:${ctx.taskId}:${args.key}`}, 0))`;
      const fact = await tx.fact.upsert({
        where: { runId_sourceStepId_key: { runId: ctx.runId, sourceStepId: ctx.stepId, key: args.key } },
        create: { taskId: ctx.taskId, runId: ctx.runId, sourceStepId: ctx.stepId, key: args.key, value },
        update: { value, superseded: false },
      });
      const previous = await tx.fact.findFirst({
        where: { taskId: ctx.taskId, key: args.key, id: { not: fact.id }, createdAt: { lte: fact.createdAt } },
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      });
      await tx.fact.updateMany({
        where: { taskId: ctx.taskId, key: args.key, id: { not: fact.id }, superseded: false },
        data: { superseded: true },
      });
      return { key: args.key, recorded: true as const, previous: previous ? factValueJson.decode(previous.value, previous.id) : null };
    });
  },
});

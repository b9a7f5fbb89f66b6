import { z } from "zod";
import {
  FactReferenceError,
  readFactReference,
  READ_REFERENCE_MAX_CHARS,
  type FactReferencePorts,
  type ReadReferenceOutput,
} from "../domain/fact-reference.ts";
import type { PrismaClient } from "../db/client.ts";
import { checkpointWorkingSetJson, taskInputJson } from "../db/json-columns.ts";
import { defineTool, ToolError } from "./types.ts";

export const readReferenceArgsSchema = z.strictObject({
  ref: z.string().min(1).max(1_000).describe('The "$ref" text of a working-set fact set aside as a reference, e.g. checkpoint cp_…, workingSet."notes"'),
  offset: z.number().int().min(0).default(0).describe("Character offset into the value's JSON text, for the next page of a cut value (its nextOffset)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(READ_REFERENCE_MAX_CHARS)
    .default(READ_REFERENCE_MAX_CHARS)
    .describe(`Most characters of JSON to return (at most ${READ_REFERENCE_MAX_CHARS})`),
});

/** The rows a reference may name, read through Prisma, for one task only. */
function prismaReferencePorts(prisma: PrismaClient): FactReferencePorts {
  return {
    async checkpointWorkingSet({ taskId, checkpointId }) {
      const cp = await prisma.checkpoint.findUnique({ where: { id: checkpointId }, select: { workingSet: true, taskId: true } });
      if (!cp) return null;
      // The task's own checkpoint, or one of the tasks it was forked from (a fork's copied working set
      // keeps the references of the original's compacted checkpoints). At most 32 generations.
      let id: string | null = taskId;
      for (let hops = 0; id && hops < 32; hops++) {
        if (id === cp.taskId) return checkpointWorkingSetJson.decode(cp.workingSet, checkpointId);
        id = (await prisma.task.findUnique({ where: { id }, select: { forkedFromTaskId: true } }))?.forkedFromTaskId ?? null;
      }
      return null;
    },
    async taskInputFacts({ taskId }) {
      const task = await prisma.task.findUnique({ where: { id: taskId }, select: { input: true } });
      if (!task) return null;
      return taskInputJson.decode(task.input, taskId).facts ?? {};
    },
  };
}

/**
 * `read_reference` (docs/CONTRACTS.md): reads back a working-set value that checkpoint compaction set
 * aside as `{$ref, description}` — read-only, for this task's rows only. Whole when its JSON fits
 * `limit` characters (≤ READ_REFERENCE_MAX_CHARS, 8,000), else one page of its JSON text with
 * `truncated: true`, `nextOffset` and a note saying so. Errors: `invalid_arguments` (not a reference,
 * offset past the end), `not_found` (no such row or key for this task). Offered to the model only
 * when the segment's working set holds references (server/inngest/functions/agent-run.ts).
 */
export const readReferenceTool = defineTool({
  name: "read_reference",
  description: `Read back a working-set fact that was set aside as a reference {"$ref", "description"} to keep the context small. Pass its $ref; at most ${READ_REFERENCE_MAX_CHARS} characters of JSON come back per call (a longer value is cut, said so, and continues at nextOffset). Read only what you need: the value goes into your context.`,
  parameters: readReferenceArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<ReadReferenceOutput> {
    try {
      return await readFactReference({ ports: prismaReferencePorts(ctx.prisma), taskId: ctx.taskId, ref: args.ref, offset: args.offset, limit: args.limit });
    } catch (error) {
      if (error instanceof FactReferenceError) throw new ToolError(error.code, error.message);
      throw error;
    }
  },
});

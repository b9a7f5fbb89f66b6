import { z } from "zod";
import { maxBytesString, utf8Bytes } from "./limits.ts";
import { defineTool } from "./types.ts";

export const ARTIFACT_MAX_BYTES = 1_048_576;
export const artifactMimes = ["text/plain", "text/markdown", "text/csv"] as const;

export const writeArtifactArgsSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\\0]+$/, "must be a plain file name (no / or \\)")
    .refine((n) => n !== "." && n !== "..", "must be a plain file name, not . or ..")
    .describe("File name, e.g. licenses.csv"),
  mime: z.enum(artifactMimes).describe("Content type"),
  content: maxBytesString(ARTIFACT_MAX_BYTES).describe("Text content (at most 1 MiB)"),
});
export type WriteArtifactArgs = z.output<typeof writeArtifactArgsSchema>;

export interface WriteArtifactOutput {
  name: string;
  mime: (typeof artifactMimes)[number];
  bytes: number;
}

/**
 * `write_artifact` (docs/CONTRACTS.md): stores a text artifact of the task, upserted by (runId, stepId,
 * name) so a re-executed step overwrites its own row instead of adding one. `bytes` is the UTF-8 size.
 * The latest artifact of a task with a given name is its current version.
 */
export const writeArtifactTool = defineTool({
  name: "write_artifact",
  description: "Write a text artifact (text/plain, text/markdown or text/csv) that is kept with the task's result.",
  parameters: writeArtifactArgsSchema,
  sideEffect: false,
  async execute(args, ctx): Promise<WriteArtifactOutput> {
    const bytes = utf8Bytes(args.content);
    await ctx.prisma.artifact.upsert({
      where: { runId_stepId_name: { runId: ctx.runId, stepId: ctx.stepId, name: args.name } },
      create: { taskId: ctx.taskId, runId: ctx.runId, stepId: ctx.stepId, name: args.name, mime: args.mime, content: args.content, bytes },
      update: { mime: args.mime, content: args.content, bytes },
    });
    return { name: args.name, mime: args.mime, bytes };
  },
});

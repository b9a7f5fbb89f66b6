import { z } from "zod";

/**
 * What an alert says beyond its message, read from its stored evidence for the kinds whose evidence
 * a person needs to see (the run page and the task API show it with the alert, not through a step):
 *
 * - `mcp_tools_changed`: the server, and the tools added, removed and changed (with the fields that
 *   changed) since the task's snapshot; raised at a segment's start, on no step of the timeline.
 * - `mcp_server_exited`: the server, the tool whose call was in flight, the process's pid and exit
 *   code or signal, when, and what was done about the call.
 *
 * Other kinds, and evidence that does not parse (an older row), give null. Pure.
 */

const toolsChangedSchema = z.object({
  server: z.string(),
  added: z.array(z.string()).default([]),
  // Rows written before "removed" was recorded call it "missing".
  removed: z.array(z.string()).optional(),
  missing: z.array(z.string()).default([]),
  changed: z.array(z.object({ tool: z.string(), fields: z.array(z.string()) })).default([]),
});

const serverExitedSchema = z.object({
  server: z.string(),
  tool: z.string(),
  action: z.enum(["retried", "called_again", "escalated"]),
  pid: z.number().nullable(),
  code: z.number().nullable(),
  signal: z.string().nullable(),
  at: z.string(),
});

/** The detail as the API answers it (`task.get` alerts' `detail`): one shape per kind, nothing else. */
export const alertDetailSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("mcp_tools_changed"),
    server: z.string(),
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(z.strictObject({ tool: z.string(), fields: z.array(z.string()) })),
  }),
  serverExitedSchema.extend({ kind: z.literal("mcp_server_exited") }).strict(),
]);

export type AlertDetail = z.infer<typeof alertDetailSchema>;

/** The detail of an alert of `kind` with `evidence` as stored, or null. */
export function alertDetail(kind: string, evidence: unknown): AlertDetail | null {
  if (kind === "mcp_tools_changed") {
    const parsed = toolsChangedSchema.safeParse(evidence);
    if (!parsed.success) return null;
    const e = parsed.data;
    return { kind, server: e.server, added: e.added, removed: e.removed ?? e.missing, changed: e.changed };
  }
  if (kind === "mcp_server_exited") {
    const parsed = serverExitedSchema.safeParse(evidence);
    return parsed.success ? { kind, ...parsed.data } : null;
  }
  return null;
}

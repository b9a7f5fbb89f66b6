import type { z } from "zod";
import type { PrismaClient } from "../db/client.ts";

/**
 * What a tool call runs against: the database, the identity of the step that carries the call
 * (task id + run id + step id, the basis of the idempotency key, ARCHITECTURE.md "Idempotency") and
 * the task's workspace folder (absolute path) that the read-only file tools may look into.
 */
export interface ToolContext {
  prisma: PrismaClient;
  taskId: string;
  runId: string;
  /** Stable step id of the durable step running the call, e.g. "tool-3-1" (unique per call). */
  stepId: string;
  /** Absolute path of the task's workspace. */
  workspace: string;
}

/**
 * Closed set of error codes a tool call can return to the model (CONTRACTS.md: a malformed call is a
 * tool result `{error: {code, message}}`, never a crash).
 */
export type ToolErrorCode =
  | "unknown_tool"
  | "invalid_json"
  | "invalid_arguments"
  | "path_outside_workspace"
  | "not_found"
  | "not_a_file"
  | "not_a_directory"
  | "idempotency_conflict"
  /** A human rejected this risky call (an escalation of reason risky_action); it was not run. */
  | "rejected_by_human"
  /** The URL's origin is not in LONGHAUL_HTTP_ALLOW (http_post). */
  | "not_allowed"
  /** An external effect's outcome is unknown (intent without result): the run escalates to a human. */
  | "unresolved_effect";

/**
 * An error the agent can recover from (bad path, bad argument). The gateway turns it into
 * `{ok: false, error: {code, message}}`; any other exception is an infrastructure failure and is
 * rethrown so the durable step retries.
 */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
  }
}

/**
 * One tool: its name and description as the model sees them, a zod schema for its arguments
 * (turned into JSON Schema for the model), and its body.
 * - `sideEffect`: the call sends something out of the run and is recorded in the side-effect ledger
 *   with an idempotency key (server/tools/ledger.ts).
 * - `risky`: the agent loop takes a checkpoint before running it (ARCHITECTURE.md, step 5) and, when
 *   the task requires approval, asks a human to Approve or Reject the call first.
 * - `repeatable`: identical repeats of a committed effect by another run are legitimate and are
 *   performed again instead of deduplicated (only meaningful with `sideEffect`).
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  sideEffect: boolean;
  risky?: boolean;
  repeatable?: boolean;
  execute(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
}

/** Identity helper that keeps the schema's inferred type for `execute`'s arguments. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

import type { z } from "zod";
import type { PrismaClient } from "../db/client.ts";

/**
 * What a tool call runs against: the database, the identity of the step that carries the call
 * (task id + run id + step id, the basis of the idempotency key, docs/ARCHITECTURE.md "Idempotency") and
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
 * Closed set of error codes a tool call can return to the model (docs/CONTRACTS.md: a malformed call is a
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
  /** The call breaks the egress policy and the policy refuses breaches (server/domain/egress-policy.ts): never sent. */
  | "not_allowed"
  /**
   * The call breaks the egress policy (a destination outside it, a secret or workspace file content
   * in what it sends) and no handler has approved this very call: not sent. The agent loop escalates
   * such a call as `risky_action` before it gets here (server/tools/egress-gate.ts).
   */
  | "approval_required"
  /** An external effect's outcome is unknown (intent without result): the run escalates to a human. */
  | "unresolved_effect"
  /** An MCP tool answered with an error (`isError`, or a protocol error such as invalid params): nothing to retry blindly. */
  | "tool_error"
  /** An MCP server could not be started or reached (the message quotes its stderr); nothing was sent. */
  | "server_unavailable";

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
 * - `risky`: the agent loop takes a checkpoint before running it (docs/ARCHITECTURE.md "How a run works", step 5) and, when
 *   the task requires approval, asks a human to Approve or Reject the call first.
 * - `repeatable`: identical repeats of a committed effect by another run are legitimate and are
 *   performed again instead of deduplicated (only meaningful with `sideEffect`).
 * - `egress`: the call sends something out of the organisation; returns its destinations (email
 *   recipients, URLs, each with the argument naming it). Such a call passes the egress gate
 *   (server/tools/egress-gate.ts) before it runs: destinations checked against the policy, every
 *   string argument scanned for secrets and workspace file contents.
 */
export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: S;
  sideEffect: boolean;
  risky?: boolean;
  repeatable?: boolean;
  egress?(args: z.output<S>): EgressDestinations;
  /** The JSON Schema the model gets instead of `parameters` as JSON Schema (an MCP tool's own `inputSchema`). */
  jsonSchema?: Record<string, unknown>;
  /** An MCP server's tool (server/tools/mcp/mcp-tools.ts): its server, its own name there, its class. */
  mcp?: { server: string; tool: string; class: { readOnly: boolean; idempotent: boolean; destructive: boolean; openWorld: boolean } };
  execute(args: z.output<S>, ctx: ToolContext): Promise<unknown>;
}

/** Where an egress call sends (server/domain/egress-policy.ts `checkDestinations`). */
export interface EgressDestinations {
  email?: { field: string; address: string }[];
  http?: { field: string; url: string }[];
}

/** Identity helper that keeps the schema's inferred type for `execute`'s arguments. */
export function defineTool<S extends z.ZodType>(tool: ToolDefinition<S>): ToolDefinition<S> {
  return tool;
}

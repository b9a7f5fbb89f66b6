import { z } from "zod";
import { completePhaseTool } from "./complete-phase.ts";
import { declareDeadEndTool } from "./declare-dead-end.ts";
import { finishTool } from "./finish.ts";
import { httpPostTool } from "./http-post.ts";
import { listFilesTool } from "./list-files.ts";
import { readFileTool } from "./read-file.ts";
import { readReferenceTool } from "./read-reference.ts";
import { requestHumanTool } from "./request-human.ts";
import { recordFactTool } from "./record-fact.ts";
import { searchFilesTool } from "./search-files.ts";
import { sendEmailTool } from "./send-email.ts";
import { ToolError, type ToolContext, type ToolDefinition, type ToolErrorCode } from "./types.ts";
import { describeZodError, MAX_RAW_ARGUMENTS_BYTES } from "./validation.ts";
import { utf8Bytes } from "./limits.ts";
import { findUnstorableString } from "../domain/unstorable.ts";
import { REJECTED_BY_HUMAN, rejectedByHumanMessage } from "../domain/rejected-call.ts";
import { writeArtifactTool } from "./write-artifact.ts";
import { findRiskyVerdict } from "../db/approval-repository.ts";
import { gateToolCall } from "./egress-gate.ts";
import { fingerprintFor } from "./ledger.ts";

export type { ToolContext, ToolDefinition, ToolErrorCode } from "./types.ts";
export { ToolError } from "./types.ts";
export { findUnstorableString } from "../domain/unstorable.ts";

/** Every built-in tool by name (docs/CONTRACTS.md "Tools"). */
export const builtinTools: ReadonlyMap<string, ToolDefinition> = new Map(
  (
    [
      listFilesTool,
      readFileTool,
      searchFilesTool,
      recordFactTool,
      readReferenceTool,
      writeArtifactTool,
      sendEmailTool,
      httpPostTool,
      completePhaseTool,
      requestHumanTool,
      finishTool,
      declareDeadEndTool,
    ] as unknown as ToolDefinition[]
  ).map((t) => [t.name, t]),
);

/** Names of all built-in tools, in contract order. */
export const builtinToolNames: readonly string[] = [...builtinTools.keys()];

/** Tools of a run beyond the built-in ones (its MCP snapshot's, server/tools/mcp/mcp-tools.ts `mcpToolDefinitions`), by name. */
export type ExtraTools = ReadonlyMap<string, ToolDefinition>;

/** The tool called `name` (built-in, else from `extra`), or undefined. */
export function getTool(name: string, extra?: ExtraTools): ToolDefinition | undefined {
  return builtinTools.get(name) ?? extra?.get(name);
}

/** One entry of the OpenAI Chat Completions `tools` array. */
export interface ChatCompletionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * The Chat Completions `tools` array for the given tool names (a profile's `tools`), in the order
 * given; parameters are the zod schemas as JSON Schema (draft 2020-12, input side: defaulted
 * arguments are optional). Throws Error naming the unknown names (a profile configuration error).
 */
export function toolDefinitions(names: readonly string[], extra?: ExtraTools): ChatCompletionTool[] {
  const unknown = names.filter((n) => !getTool(n, extra));
  if (unknown.length > 0) throw new Error(`unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; known: ${builtinToolNames.join(", ")}`);
  return names.map((name) => {
    const tool = getTool(name, extra)!;
    if (tool.jsonSchema) return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.jsonSchema } };
    const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
  });
}

/** What a tool call gave: the tool's output, or an error for the model to read. */
export type ToolCallResult = { ok: true; output: unknown } | { ok: false; error: { code: ToolErrorCode; message: string; idempotencyKey?: string } };

/**
 * The tool gateway: runs one model tool call. `rawArguments` is the untrusted JSON text the model
 * produced. Unknown tool, invalid JSON, arguments failing the schema, and agent-level failures (path
 * outside the workspace, file not found…) give `{ok: false, error}` with a message naming the field
 * and the limit. Never throws for bad input; throws only for infrastructure failures (database down,
 * I/O errors other than not-found), so the durable step retries. A tool with `egress` passes the
 * egress gate first (see enforceEgress): outside the policy it is not sent without an Approve.
 * Also throws UnresolvedEffectError
 * (server/tools/ledger.ts) when an external effect's outcome is unknown: the caller escalates.
 */
export async function executeToolCall({
  name,
  rawArguments,
  ctx,
  extra,
}: {
  name: string;
  rawArguments: string;
  ctx: ToolContext;
  /** The run's MCP tools (its snapshot), beside the built-in ones. */
  extra?: ExtraTools;
}): Promise<ToolCallResult> {
  const checked = validateToolCall({ name, rawArguments, extra });
  if (!checked.ok) return checked;
  if (checked.tool.egress) {
    const stopped = await enforceEgress({ tool: checked.tool, args: checked.args, ctx });
    if (stopped) return stopped;
  }
  try {
    return { ok: true, output: await checked.tool.execute(checked.args, ctx) };
  } catch (error) {
    if (error instanceof ToolError) return { ok: false, error: { code: error.code, message: error.message } };
    throw error;
  }
}

/**
 * The egress gate as the gateway enforces it (server/tools/egress-gate.ts): a call inside the
 * policy passes (null); outside it, with `refuse` → `not_allowed`; with `escalate` → it runs only
 * when a handler applied Approve to this very call (its ledger fingerprint, the risky_action
 * verdict), a Reject → `rejected_by_human`, no verdict yet → `approval_required`. Either way the
 * message names the rules broken with redacted findings, never the secret.
 */
async function enforceEgress({ tool, args, ctx }: { tool: ToolDefinition; args: unknown; ctx: ToolContext }): Promise<ToolCallResult | null> {
  const verdict = await gateToolCall({ prisma: ctx.prisma, taskId: ctx.taskId, tool, args });
  if (verdict.action === "allow") return null;
  if (verdict.action === "refuse") {
    return {
      ok: false,
      error: { code: "not_allowed", message: `${tool.name} was not sent: ${verdict.summary}. The egress policy refuses such calls; do not try it again.` },
    };
  }
  const approval = await findRiskyVerdict({
    prisma: ctx.prisma,
    taskId: ctx.taskId,
    fingerprint: fingerprintFor({ taskId: ctx.taskId, tool: tool.name, args }),
  });
  if (approval?.decision === "approve") return null;
  if (approval?.decision === "reject") {
    return {
      ok: false,
      error: {
        code: REJECTED_BY_HUMAN,
        message: rejectedByHumanMessage(tool.name, approval.decidedBy, approval.guidance),
      },
    };
  }
  return {
    ok: false,
    error: { code: "approval_required", message: `${tool.name} was not sent: ${verdict.summary}. It needs a handler's approval of this very call.` },
  };
}

/**
 * The gateway's checks without running the tool: known tool, size (MAX_RAW_ARGUMENTS_BYTES), JSON
 * object, storable strings, the tool's zod schema. Returns the tool and its parsed arguments, or the
 * `{ok: false, error}` the model would get. Pure (used by the agent loop to decide whether a risky
 * call is well-formed before it checkpoints or asks for approval).
 */
export function validateToolCall({
  name,
  rawArguments,
  extra,
}: {
  name: string;
  rawArguments: string;
  extra?: ExtraTools;
}): { ok: true; tool: ToolDefinition; args: unknown } | { ok: false; error: { code: ToolErrorCode; message: string } } {
  const fail = (code: ToolErrorCode, message: string) => ({ ok: false as const, error: { code, message } });
  const tool = getTool(name, extra);
  if (!tool) return fail("unknown_tool", `unknown tool ${JSON.stringify(name)}; available: ${[...builtinToolNames, ...(extra?.keys() ?? [])].join(", ")}`);

  const size = utf8Bytes(rawArguments);
  if (size > MAX_RAW_ARGUMENTS_BYTES) return fail("invalid_arguments", `arguments: must be ≤ ${MAX_RAW_ARGUMENTS_BYTES} bytes of JSON, got ${size}`);
  let parsed: unknown;
  try {
    parsed = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
  } catch (error) {
    return fail("invalid_json", `arguments: not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return fail("invalid_arguments", `arguments: must be a JSON object, got ${Array.isArray(parsed) ? "array" : parsed === null ? "null" : typeof parsed}`);
  }
  const unstorable = findUnstorableString(parsed);
  if (unstorable) return fail("invalid_arguments", unstorable);
  const checked = tool.parameters.safeParse(parsed, { reportInput: true });
  if (!checked.success) return fail("invalid_arguments", describeZodError(checked.error));
  return { ok: true, tool, args: checked.data };
}

import { toolSummary } from "../domain/step-summaries.ts";
import type { ModelToolCall } from "../llm/types.ts";
import { UnresolvedEffectError } from "../tools/ledger.ts";
import type { ExtraTools, ToolCallResult } from "../tools/registry.ts";
import type { StepPorts, ToolPorts } from "./ports.ts";

/**
 * The body of durable step `tool-<n>-<k>`: runs one tool call and records it on the timeline. With
 * `refused` (a human rejected this risky call) the tool is not run: the step records the refusal and
 * the model gets it as the call's error. A side-effecting call (`fingerprint`) first settles the
 * ledger from a human's verdict on an earlier unresolved attempt. An effect whose outcome is unknown
 * (UnresolvedEffectError) becomes the result `unresolved_effect` — the loop escalates; never guessed,
 * never repeated. Other errors are thrown (infrastructure: the durable step retries).
 */
export async function runToolStep({
  ports,
  taskId,
  runId,
  workspace,
  stepId,
  index,
  call,
  refused,
  fingerprint,
  extra,
}: {
  ports: StepPorts & ToolPorts;
  taskId: string;
  runId: string;
  workspace: string;
  stepId: string;
  index: number;
  call: ModelToolCall;
  refused?: ToolCallResult;
  /** Ledger fingerprint of a well-formed side-effecting call, else null. */
  fingerprint: string | null;
  /** The run's MCP tools (server/tools/mcp/mcp-tools.ts). */
  extra?: ExtraTools;
}): Promise<ToolCallResult> {
  let args: unknown = call.arguments;
  try {
    args = JSON.parse(call.arguments);
  } catch {
    // keep the raw text: the gateway reports the malformed call to the model
  }
  await ports.beginStep({ runId, stepId, index, kind: "tool", tool: call.name, args });
  let result: ToolCallResult;
  if (refused) result = refused;
  else {
    try {
      if (fingerprint) await ports.settleEffectByVerdict({ taskId, fingerprint });
      result = await ports.executeToolCall({ name: call.name, rawArguments: call.arguments, taskId, runId, stepId, workspace, ...(extra ? { extra } : {}) });
    } catch (error) {
      if (!(error instanceof UnresolvedEffectError)) throw error;
      result = { ok: false, error: { code: "unresolved_effect", message: error.message, idempotencyKey: error.idempotencyKey } };
    }
  }
  await ports.endStep({
    runId,
    stepId,
    status: result.ok ? "completed" : "failed",
    output: result.ok ? result.output : { error: result.error },
    error: result.ok ? undefined : `[${result.error.code}] ${result.error.message}`,
    summary: toolSummary(call.name, args, result),
  });
  return result;
}

import type { InspectedCall } from "../domain/agent-loop/index.ts";
import type { ModelToolCall } from "../llm/types.ts";
import { fingerprintFor } from "../tools/ledger.ts";
import { validateToolCall, type ExtraTools } from "../tools/registry.ts";

/** Validates and fingerprints a model turn's tool calls once (pure; the loop decides on the result). */
export function inspectCalls(taskId: string, calls: ModelToolCall[], extra: ExtraTools): InspectedCall[] {
  return calls.map((call) => {
    const valid = validateToolCall({ name: call.name, rawArguments: call.arguments, extra });
    return {
      call,
      valid: valid.ok,
      args: valid.ok ? valid.args : call.arguments,
      risky: valid.ok && !!valid.tool.risky,
      egress: valid.ok && !!valid.tool.egress,
      // An egress call needs one too: a handler's verdict on it is found by it (an open-world MCP tool may be read-only).
      fingerprint: valid.ok && (valid.tool.sideEffect || valid.tool.egress) ? fingerprintFor({ taskId, tool: call.name, args: valid.args }) : null,
    };
  });
}

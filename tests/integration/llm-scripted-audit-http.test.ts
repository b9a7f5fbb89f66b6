import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatCompletion } from "../../server/llm/provider.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../../server/llm/scripted/server.ts";
import type { ChatMessage } from "../../server/llm/types.ts";
import { expectedLicenseCsv, licenseAuditGoal } from "../../server/tools/demo/license-audit.ts";
import { builtinToolNames, executeToolCall, toolDefinitions } from "../../server/tools/registry.ts";
import type { ToolContext } from "../../server/tools/types.ts";
import { createToolSimulator } from "../unit/llm-tool-sim.ts";
import { freePort } from "../support/ports.ts";

// The demo over HTTP: the scripted model server, driven through the real adapter (streaming), with
// the real read-only tools (list_files, read_file) over this project's own node_modules. The tools
// that need the database (record_fact, write_artifact, send_email, finish) are simulated here. The
// CSV must equal the one the tools' demo helper computes straight from the package.json files.

const workspace = path.resolve(import.meta.dirname, "../..");
let server: ScriptedModelServer;

beforeAll(async () => {
  server = await startScriptedModelServer({ port: await freePort() });
});
afterAll(async () => {
  await server.stop();
});

describe("license-audit demo over HTTP with the real read-only tools", () => {
  it("writes the same CSV as computed from node_modules, then emails and finishes", async () => {
    const limit = 25;
    const sim = createToolSimulator({ root: workspace });
    const ctx = { prisma: null as never, taskId: "t", runId: "r", stepId: "s", workspace } satisfies ToolContext;
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a careful agent." },
      { role: "user", content: `<goal>${licenseAuditGoal(limit, "audit@example.com")}</goal>\n<working_set>{}</working_set>` },
    ];
    const tools = toolDefinitions(builtinToolNames);
    let turns = 0;
    let cachedSeen = 0;
    while (sim.finished === null && sim.deadEnd === null && turns < 60) {
      turns++;
      const reply = await createChatCompletion({ baseUrl: server.baseUrl, model: "scripted", messages, tools, stream: true, chunkTimeoutMs: 10_000 });
      cachedSeen = Math.max(cachedSeen, reply.usage.cachedTokens);
      expect(reply.message.toolCalls.length).toBeGreaterThan(0);
      messages.push({
        role: "assistant",
        content: reply.message.content,
        tool_calls: reply.message.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
      });
      for (const call of reply.message.toolCalls) {
        let output: unknown;
        if (call.name === "list_files" || call.name === "read_file") {
          const result = await executeToolCall({ name: call.name, rawArguments: call.arguments, ctx });
          output = result.ok ? result.output : { error: result.error };
        } else {
          output = sim.execute(call.name, call.arguments);
        }
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(output) });
      }
    }
    expect(sim.deadEnd).toBeNull();
    expect(sim.finished).toMatch(new RegExp(`Audited ${limit} packages`));
    expect(sim.artifacts.get("licenses.csv")?.content).toBe(await expectedLicenseCsv(workspace, limit));
    expect(sim.emails).toEqual([expect.objectContaining({ to: "audit@example.com", subject: `License audit: ${limit} packages` })]);
    expect(cachedSeen).toBeGreaterThan(0); // the growing transcript shares its prefix with the previous turn
    expect(turns).toBeLessThan(20);
  });
});

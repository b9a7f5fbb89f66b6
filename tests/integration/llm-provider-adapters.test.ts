import Anthropic from "@anthropic-ai/sdk";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assistantMessage, buildInitialMessages, toolResultMessage } from "../../server/domain/agent-context.ts";
import { modelCallCostUsd } from "../../server/domain/cost.ts";
import { ModelCallError, parseContextLimit } from "../../server/llm/errors.ts";
import { callModel, resolveProvider } from "../../server/llm/provider.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../../server/llm/scripted/server.ts";
import type { ChatMessage, ModelRequest, ModelResult, ToolSchema, WireFormat } from "../../server/llm/types.ts";
import { freePort } from "../support/ports.ts";

// The three adapters through their official SDKs against a real scripted model server on a free port,
// which speaks Chat Completions, the Responses API and the Messages API.

let server: ScriptedModelServer;

const WIRES: WireFormat[] = ["chat", "responses", "messages"];
const tool = (name: string, properties: Record<string, unknown>): ToolSchema => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters: { type: "object", properties } },
});
const tools: ToolSchema[] = [
  tool("list_files", { path: { type: "string" }, offset: { type: "integer" } }),
  tool("read_file", { path: { type: "string" }, offset: { type: "integer" } }),
  tool("record_fact", { key: { type: "string" }, value: {} }),
  tool("finish", { result: { type: "string" } }),
];
/** A long system prompt, so the stable prefix is over every provider's minimum cacheable length. */
const SYSTEM = `You are a careful agent working through a long task with tools. ${"Record every established fact with record_fact before you act on it. ".repeat(120)}`;
const opening = (goal = "Tell me what this workspace is about.") => buildInitialMessages({ systemPrompt: SYSTEM, goal, workingSet: {} });
const LISTING = {
  entries: [
    { name: "README.md", type: "file" },
    { name: "src", type: "dir" },
  ],
  nextOffset: null,
};

const base = (wire: WireFormat) => (wire === "messages" ? server.url : server.baseUrl);
function call(wire: WireFormat, messages: ChatMessage[], extra: Partial<ModelRequest> = {}): Promise<ModelResult> {
  return callModel({ wireFormat: wire, baseUrl: base(wire), model: "scripted", messages, tools, promptCacheKey: `task-${wire}`, ...extra });
}
async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ModelCallError);
    return err as ModelCallError;
  }
  throw new Error("expected the call to fail");
}
async function arm(fault: Record<string, unknown>) {
  const res = await fetch(`${server.url}/control/faults`, { method: "POST", body: JSON.stringify(fault) });
  expect(res.status).toBe(201);
}
const stats = async () => (await (await fetch(`${server.url}/control/stats`)).json()) as { reasoningReturned: number; byRoute: Record<string, number> };

/** Turn 1 (list the root), its result, then turn 2: the transcript a run builds, reasoning carried. */
async function twoTurns(wire: WireFormat, extra: Partial<ModelRequest> = {}) {
  const messages = opening();
  const first = await call(wire, messages, extra);
  messages.push(assistantMessage(first.message.content, first.message.toolCalls, first.reasoning));
  for (const c of first.message.toolCalls) messages.push(toolResultMessage(c.id, { ok: true, output: LISTING }));
  const second = await call(wire, messages, extra);
  return { first, second, messages };
}

beforeAll(async () => {
  server = await startScriptedModelServer({ port: await freePort() });
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  await fetch(`${server.url}/control/reset`, { method: "POST" });
});

describe.each(WIRES)("the %s adapter against the scripted server", (wire) => {
  it("streams tool calls, parallel ones in order, and reads the same answer without streaming", async () => {
    const { first, second } = await twoTurns(wire);
    expect(first.streamed).toBe(true);
    expect(first.finishReason).toBe("tool_calls");
    expect(first.message.toolCalls.map((c) => [c.name, JSON.parse(c.arguments) as unknown])).toEqual([["list_files", { path: ".", offset: 0 }]]);
    // Turn 2 records the listing and reads the README in one turn: two parallel calls, in order.
    expect(second.message.toolCalls.map((c) => c.name)).toEqual(["record_fact", "read_file"]);
    expect(JSON.parse(second.message.toolCalls[1]!.arguments)).toMatchObject({ path: "README.md" });
    await fetch(`${server.url}/control/reset`, { method: "POST" });
    const whole = await call(wire, opening(), { stream: false });
    expect(whole.streamed).toBe(false);
    expect(whole.message.toolCalls.map((c) => [c.name, c.arguments])).toEqual(first.message.toolCalls.map((c) => [c.name, c.arguments]));
    expect(whole.usage).toEqual(first.usage);
  });

  it("reports usage the provider's way: cached prefix on the next turn, priced from the price package", async () => {
    const { first, second } = await twoTurns(wire);
    expect(first.usageEstimated).toBe(false);
    expect(first.usage.promptTokens).toBeGreaterThan(1024);
    expect(first.usage.cachedTokens).toBe(0);
    // The stable prefix (tools, system prompt, goal, state) is read from the cache on turn 2.
    expect(second.usage.cachedTokens).toBeGreaterThanOrEqual(1024);
    expect(second.usage.cachedTokens).toBeLessThan(second.usage.promptTokens);
    if (wire === "messages") {
      // Anthropic writes the cache up to its breakpoints, and reports the write apart.
      expect(first.usage.cacheWriteTokens).toBeGreaterThanOrEqual(1024);
      expect(second.usage.cacheWriteTokens).toBeGreaterThan(0);
      // A write costs 1.25 × input and a read 0.1 × on Claude (genai-prices): the second turn's
      // cached prefix costs less than the first turn's written one.
      const price = (u: ModelResult["usage"]) =>
        modelCallCostUsd({ model: "claude-sonnet-4-5", usage: u, prices: { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null } }).usd;
      const uncachedFirst = modelCallCostUsd({
        model: "claude-sonnet-4-5",
        usage: { ...first.usage, cacheWriteTokens: 0 },
        prices: { inputPerMTok: null, cachedPerMTok: null, outputPerMTok: null },
      }).usd;
      expect(price(first.usage)).toBeGreaterThan(uncachedFirst);
    } else {
      expect(first.usage.cacheWriteTokens ?? 0).toBe(0);
    }
  });

  it("classifies a 429 with its retry-after, a 500, and an overload", async () => {
    await arm({ kind: "429", retryAfterSeconds: 7, route: wire });
    const limited = await failure(call(wire, opening()));
    expect(limited).toMatchObject({ kind: "rate_limited", status: 429, retryable: true, retryAfterMs: 7000, billed: false });
    await arm({ kind: "500", route: wire });
    expect(await failure(call(wire, opening()))).toMatchObject({ kind: "server", retryable: true });
    await arm({ kind: "529", retryAfterSeconds: 3, route: wire });
    const overloaded = await failure(call(wire, opening()));
    if (wire === "messages") expect(overloaded).toMatchObject({ kind: "overloaded", status: 529, retryable: true, retryAfterMs: 3000 });
    else expect(overloaded).toMatchObject({ kind: "server", status: 503, retryable: true });
  });

  it("refuses a prompt over the window in the provider's words, as context_length with the stated limit", async () => {
    await arm({ kind: "context_length", maxPromptTokens: 500, statedLimitTokens: 1000, count: 2, route: wire });
    const refused = await failure(call(wire, opening()));
    expect(refused).toMatchObject({ kind: "context_length", status: 400, retryable: false });
    expect(parseContextLimit(refused.message)).toMatchObject({ limitTokens: 1000 });
    expect(parseContextLimit(refused.message).promptTokens).toBeGreaterThan(1000);
    // A prompt that fits is answered (and uses the fault up not at all).
    const small = await call(wire, [{ role: "user", content: "<goal>hi</goal>\n<working_set>{}</working_set>" }]);
    expect(small.finishReason).toBeTruthy();
  });

  it("cuts, stalls and stops like any provider: stream_cut, the per-chunk watchdog", async () => {
    await arm({ kind: "cut", route: wire });
    expect(await failure(call(wire, opening()))).toMatchObject({ kind: "stream_cut", retryable: true });
    await arm({ kind: "stall", stallMs: 5_000, route: wire });
    expect(await failure(call(wire, opening(), { chunkTimeoutMs: 200 }))).toMatchObject({ kind: "timeout", retryable: true });
  });

  it("reads a server that answers a streamed request without streaming, and says so", async () => {
    await arm({ kind: "no_stream", count: 1, route: wire });
    const res = await call(wire, opening());
    expect(res.streamed).toBe(false);
    expect(res.streamFallback).toMatch(/does not stream/);
    expect(res.message.toolCalls.map((c) => c.name)).toEqual(["list_files"]);
  });

  it("maps effort to the provider's control", async () => {
    const res = await call(wire, opening(), { effort: "high" });
    expect(res.effort).toEqual({ level: "high", sentAs: { chat: "reasoning_effort", responses: "reasoning.effort", messages: "output_config.effort" }[wire] });
    expect(res.usage.reasoningTokens).toBeGreaterThan(0);
    const low = await call(wire, opening(), { effort: "low" });
    expect(low.usage.reasoningTokens).toBeLessThan(res.usage.reasoningTokens!);
  });
});

describe("reasoning continuity", () => {
  it("Responses: the encrypted reasoning item of turn 1 goes back in turn 2, and the server verifies it", async () => {
    const { first } = await twoTurns("responses");
    expect(first.reasoning).toHaveLength(1);
    expect(first.reasoning![0]).toMatchObject({ type: "openai_reasoning", id: expect.stringMatching(/^rs_/), encryptedContent: expect.any(String) });
    expect((await stats()).reasoningReturned).toBe(1);
    // A tampered item is refused, as OpenAI refuses one it cannot decrypt.
    const messages = opening();
    messages.push(assistantMessage(first.message.content, first.message.toolCalls, [{ ...first.reasoning![0]!, encryptedContent: "dGFtcGVyZWQ=" } as never]));
    for (const c of first.message.toolCalls) messages.push(toolResultMessage(c.id, { ok: true, output: LISTING }));
    expect(await failure(call("responses", messages))).toMatchObject({ kind: "bad_request", status: 400 });
  });

  it("Messages: the signed thinking block of a tool-use turn goes back in the next request; a changed one is refused", async () => {
    const { first } = await twoTurns("messages", { effort: "medium" });
    expect(first.reasoning).toEqual([{ type: "anthropic_thinking", thinking: expect.any(String), signature: expect.any(String) }]);
    expect((await stats()).reasoningReturned).toBe(1);
    const messages = opening();
    const changed = { ...first.reasoning![0]!, thinking: "something else" } as never;
    messages.push(assistantMessage(first.message.content, first.message.toolCalls, [changed]));
    for (const c of first.message.toolCalls) messages.push(toolResultMessage(c.id, { ok: true, output: LISTING }));
    const refused = await failure(call("messages", messages, { effort: "medium" }));
    expect(refused).toMatchObject({ kind: "bad_request", status: 400 });
    expect(refused.message).toContain("signature");
  });

  it("Chat Completions has no place for them: nothing is sent back, nothing is refused", async () => {
    const { first, second } = await twoTurns("chat", { effort: "medium" });
    expect(first.reasoning ?? []).toEqual([]);
    expect(second.message.toolCalls.length).toBe(2);
    expect((await stats()).reasoningReturned).toBe(0);
  });
});

describe("the official SDKs' stream helpers parse the scripted server's streams", () => {
  it("openai responses.stream: output items, argument deltas, the completed response", async () => {
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "x", maxRetries: 0 });
    const seen = new Set<string>();
    const stream = client.responses.stream({
      model: "scripted",
      input: [{ role: "user", content: "<goal>Tell me what this workspace is about.</goal>\n<working_set>{}</working_set>" }],
      tools: [{ type: "function", name: "list_files", parameters: { type: "object", properties: {} }, strict: false }],
      store: false,
      include: ["reasoning.encrypted_content"],
    });
    for await (const event of stream) seen.add(event.type);
    const final = await stream.finalResponse();
    expect([...seen]).toEqual(
      expect.arrayContaining([
        "response.created",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.output_item.done",
        "response.completed",
      ]),
    );
    expect(final.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(final.usage?.input_tokens).toBeGreaterThan(0);
  });

  it("anthropic messages.stream: thinking and signature deltas, tool input, the final message and usage", async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
    const stream = client.messages.stream({
      model: "scripted",
      max_tokens: 1024,
      thinking: { type: "adaptive" },
      messages: [{ role: "user", content: "<goal>Tell me what this workspace is about.</goal>\n<working_set>{}</working_set>" }],
      tools: [{ name: "list_files", input_schema: { type: "object", properties: {} } }],
    });
    const deltas = new Set<string>();
    stream.on("streamEvent", (e) => {
      if (e.type === "content_block_delta") deltas.add(e.delta.type);
    });
    const final = await stream.finalMessage();
    expect([...deltas]).toEqual(expect.arrayContaining(["thinking_delta", "signature_delta", "text_delta", "input_json_delta"]));
    expect(final.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(final.content[2]).toMatchObject({ type: "tool_use", name: "list_files", input: { path: ".", offset: 0 } });
    expect(final.stop_reason).toBe("tool_use");
    expect(final.usage.input_tokens).toBeGreaterThan(0);
  });
});

describe("the key rule on the wire", () => {
  /** A loopback server that records the headers it receives and answers like an unreachable key check (401). */
  async function collector() {
    const seen: IncomingHttpHeaders[] = [];
    const http = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "no", type: "invalid_request_error", code: "invalid_api_key" } }));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen, stop: () => new Promise<void>((r) => http.close(() => r())) };
  }

  it("a profile pointing elsewhere without apiKeyEnv sends no key at all, whatever the SDKs could read from the environment", async () => {
    const mock = await collector();
    const saved = { openai: process.env.OPENAI_API_KEY, anthropic: process.env.ANTHROPIC_API_KEY };
    process.env.OPENAI_API_KEY = "sk-org-secret";
    process.env.ANTHROPIC_API_KEY = "sk-ant-org-secret";
    try {
      const config = { MODEL_PORT: 8787, OPENAI_API_KEY: "sk-org-secret", ANTHROPIC_API_KEY: "sk-ant-org-secret" };
      for (const provider of ["openai", "openai-responses", "anthropic"] as const) {
        const p = resolveProvider({ endpoint: { provider, baseUrl: provider === "anthropic" ? mock.url : `${mock.url}/v1` }, config, variables: {} });
        await failure(
          callModel({ wireFormat: p.wireFormat, baseUrl: p.baseUrl, apiKey: p.apiKey, headers: p.headers, model: "m", messages: opening(), tools }),
        );
      }
      expect(mock.seen).toHaveLength(3);
      for (const headers of mock.seen) {
        expect(JSON.stringify(headers)).not.toContain("secret");
        expect(headers.authorization).toBeUndefined();
        expect(headers["x-api-key"]).toBeUndefined();
      }
    } finally {
      process.env.OPENAI_API_KEY = saved.openai;
      process.env.ANTHROPIC_API_KEY = saved.anthropic;
      if (saved.openai === undefined) delete process.env.OPENAI_API_KEY;
      if (saved.anthropic === undefined) delete process.env.ANTHROPIC_API_KEY;
      await mock.stop();
    }
  });
});

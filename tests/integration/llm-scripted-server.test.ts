import { request as httpRequest } from "node:http";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ModelCallError, parseContextLimit } from "../../server/llm/errors.ts";
import { countTokens } from "../../server/llm/tokens.ts";
import { createChatCompletion, LOCAL_RECONNECT_MS, type ChatCompletionRequest } from "../../server/llm/provider.ts";
import { startScriptedModelServer, type ScriptedModelServer } from "../../server/llm/scripted/server.ts";
import type { ChatMessage, ToolSchema } from "../../server/llm/types.ts";
import { freePort } from "../support/ports.ts";

// A real scripted model server on a free port, driven through the real adapter (openai SDK over HTTP).

let server: ScriptedModelServer;

const GOAL =
  "Audit the licenses of the first 3 packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to audit@example.com, then finish.";
const messages: ChatMessage[] = [
  { role: "system", content: "You are a careful agent." },
  { role: "user", content: `<goal>${GOAL}</goal>\n<working_set>{}</working_set>` },
];
const tools: ToolSchema[] = [
  {
    type: "function",
    function: {
      name: "list_files",
      description: "List a directory",
      parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "integer" }, limit: { type: "integer" } } },
    },
  },
  {
    type: "function",
    function: { name: "finish", description: "Finish", parameters: { type: "object", properties: { result: { type: "string" } }, required: ["result"] } },
  },
];

async function arm(fault: Record<string, unknown>) {
  const res = await fetch(`${server.url}/control/faults`, { method: "POST", body: JSON.stringify(fault) });
  expect(res.status).toBe(201);
}

async function stats() {
  return (await (await fetch(`${server.url}/control/stats`)).json()) as { requests: number; completions: number; faultsServed: Record<string, number> };
}

function call(extra: Partial<ChatCompletionRequest> = {}) {
  return createChatCompletion({ baseUrl: server.baseUrl, model: "scripted", messages, tools, ...extra });
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

beforeAll(async () => {
  server = await startScriptedModelServer({ port: await freePort() });
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  await fetch(`${server.url}/control/reset`, { method: "POST" });
});

describe("scripted model server through the provider adapter", () => {
  it("answers health and models", async () => {
    expect(await (await fetch(`${server.url}/health`)).json()).toMatchObject({ ok: true });
    const models = await new OpenAI({ baseURL: server.baseUrl, apiKey: "x", maxRetries: 0 }).models.list();
    expect(models.data.map((m) => m.id)).toEqual(expect.arrayContaining(["scripted", "scripted-loop", "scripted-tool-failure"]));
  });

  it("streams a tool call with usage, and gives the same answer without streaming", async () => {
    const streamed = await call({ stream: true });
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.httpStatus).toBe(200);
    expect(streamed.message.toolCalls).toHaveLength(1);
    expect(streamed.message.toolCalls[0]!.name).toBe("list_files");
    expect(JSON.parse(streamed.message.toolCalls[0]!.arguments)).toMatchObject({ path: "node_modules" });
    expect(streamed.usageEstimated).toBe(false);
    expect(streamed.usage.promptTokens).toBeGreaterThan(50);
    expect(streamed.usage.completionTokens).toBeGreaterThan(5);

    const plain = await call({ stream: false });
    expect(plain.message).toEqual(streamed.message);
    expect(plain.finishReason).toBe("tool_calls");
    expect(plain.usage.promptTokens).toBe(streamed.usage.promptTokens);
    expect(plain.usage.completionTokens).toBe(streamed.usage.completionTokens);
  });

  it("is deterministic: the same request gets the same answer, ids included", async () => {
    const a = await call();
    const b = await call();
    expect(b.message).toEqual(a.message);
    expect(b.responseId).toBe(a.responseId);
    const other = await call({
      messages: [...messages.slice(0, 1), { role: "user", content: "<goal>Summarise the project</goal>\n<working_set>{}</working_set>" }],
    });
    expect(other.message.toolCalls[0]!.id).not.toBe(a.message.toolCalls[0]!.id);
  });

  it("reports cached tokens for a long shared prefix", async () => {
    const long: ChatMessage[] = [{ role: "system", content: "Guidelines. ".repeat(800) }, ...messages.slice(1)];
    const first = await call({ messages: long });
    expect(first.usage.cachedTokens).toBe(0);
    const second = await call({ messages: long });
    expect(second.usage.cachedTokens).toBeGreaterThanOrEqual(1024);
    expect(second.usage.cachedTokens % 128).toBe(0);
    expect(second.usage.cachedTokens).toBeLessThanOrEqual(second.usage.promptTokens);
    expect(second.usage.promptTokens - second.usage.cachedTokens).toBeLessThan(128);
  });

  it("surfaces a 429 as rate_limited with retryAfterMs, and the fault is used up", async () => {
    await arm({ kind: "429", retryAfterSeconds: 7 });
    const err = await failure(call());
    expect(err.kind).toBe("rate_limited");
    expect(err.status).toBe(429);
    expect(err.retryAfterMs).toBe(7000);
    expect(err.retryable).toBe(true);
    expect(err.billed).toBe(false);
    const next = await call();
    expect(next.finishReason).toBe("tool_calls");
    expect((await stats()).faultsServed).toEqual({ "429": 1 });
  });

  it("surfaces a 500 as a retryable server error, count times", async () => {
    await arm({ kind: "500", count: 2 });
    for (const stream of [true, false]) {
      const err = await failure(call({ stream }));
      expect(err.kind).toBe("server");
      expect(err.status).toBe(500);
      expect(err.retryable).toBe(true);
    }
    expect((await call()).finishReason).toBe("tool_calls");
    const s = await stats();
    expect(s.requests).toBe(3);
    expect(s.completions).toBe(1);
  });

  it.each([
    ["openai", { limitTokens: 50 }],
    ["vllm", { limitTokens: 50 }],
    ["llamacpp", { limitTokens: 50 }],
    ["unstated", { limitTokens: null, promptTokens: null }],
  ] as const)("refuses a prompt over maxPromptTokens as context_length (%s words), answers one that fits, and keeps refusing", async (style, stated) => {
    const prompt = countTokens(messages, tools);
    await arm({ kind: "context_length", maxPromptTokens: prompt - 1, statedLimitTokens: 50, style, count: 2 });
    const err = await failure(call());
    expect(err.kind).toBe("context_length");
    expect(err.status).toBe(400);
    expect(err.retryable).toBe(false);
    expect(parseContextLimit(err.message)).toEqual({ promptTokens: prompt, ...stated });
    // A prompt that fits is answered and uses nothing up; the next long one is refused again.
    expect((await call({ messages: [messages[0]!, { role: "user", content: "hi" }] })).finishReason).toBeDefined();
    expect((await failure(call())).kind).toBe("context_length");
    expect((await call()).finishReason).toBe("tool_calls");
    expect((await stats()).faultsServed).toEqual({ context_length: 2 });
  });

  it("only serves a fault to the model it names", async () => {
    await arm({ kind: "500", model: "scripted-loop" });
    expect((await call()).finishReason).toBe("tool_calls");
    expect((await failure(call({ model: "scripted-loop" }))).kind).toBe("server");
  });

  it("only serves a fault to a request whose transcript contains its promptContains", async () => {
    await arm({ kind: "500", promptContains: "another task's goal" });
    expect((await call()).finishReason).toBe("tool_calls");
    expect((await stats()).faultsServed).toEqual({});
    const other = [...messages.slice(0, -1), { role: "user" as const, content: "<goal>another task's goal</goal>" }];
    expect((await failure(call({ messages: other }))).kind).toBe("server");
    expect((await stats()).faultsServed).toEqual({ 500: 1 });
  });

  it("turns a stall after headers into a timeout via the per-chunk watchdog", async () => {
    await arm({ kind: "stall", stallMs: 60_000 });
    const err = await failure(call({ stream: true, chunkTimeoutMs: 300 }));
    expect(err.kind).toBe("timeout");
    expect(err.message).toMatch(/watchdog/);
    expect(err.retryable).toBe(true);
    expect(err.latencyMs).toBeLessThan(10_000);
    expect((await call()).finishReason).toBe("tool_calls");
  });

  it("turns a stall before headers into a timeout via the request timeout", async () => {
    await arm({ kind: "stall", stallMs: 60_000, phase: "before_headers" });
    const err = await failure(call({ stream: false, timeoutMs: 300 }));
    expect(err.kind).toBe("timeout");
    expect(err.latencyMs).toBeLessThan(10_000);
  });

  it("reports a stream that ends without finish_reason as stream_cut, billed", async () => {
    await arm({ kind: "cut" });
    const err = await failure(call({ stream: true }));
    expect(err.kind).toBe("stream_cut");
    expect(err.retryable).toBe(true);
    expect(err.billed).toBe(true);
    expect(err.estimatedUsage?.promptTokens).toBeGreaterThan(0);
    expect((await call()).finishReason).toBe("tool_calls");
  });

  it("reports a cut non-streaming body as stream_cut", async () => {
    await arm({ kind: "cut" });
    expect((await failure(call({ stream: false }))).kind).toBe("stream_cut");
  });

  it("classifies an unknown model as unknown_model and a closed port as network", async () => {
    const unknown = await failure(call({ model: "gpt-nope" }));
    expect(unknown.kind).toBe("unknown_model");
    expect(unknown.status).toBe(404);
    expect(unknown.retryable).toBe(false);
    const closed = await failure(createChatCompletion({ baseUrl: `http://127.0.0.1:${await freePort()}/v1`, model: "scripted", messages }));
    expect(closed.kind).toBe("network");
    expect(closed.retryable).toBe(true);
    // A local server: retried soon, not after the executor's long backoff.
    expect(closed.retryAfterMs).toBe(LOCAL_RECONNECT_MS);
  });

  it("honours the caller's abort signal", async () => {
    await arm({ kind: "stall", stallMs: 60_000 });
    const controller = new AbortController();
    const pending = failure(call({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    expect((await pending).kind).toBe("aborted");
  });

  it("accepts content given as an array of text parts", async () => {
    const res = await fetch(`${server.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "scripted", messages: [{ role: "user", content: [{ type: "text", text: messages[1]!.content }] }] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { tool_calls: { function: { name: string } }[] } }[] };
    expect(body.choices[0]!.message.tool_calls[0]!.function.name).toBe("list_files");
  });

  it("lists and clears armed faults", async () => {
    await arm({ kind: "429", count: 3 });
    const listed = (await (await fetch(`${server.url}/control/faults`)).json()) as { faults: { kind: string; count: number }[] };
    expect(listed.faults).toEqual([expect.objectContaining({ kind: "429", count: 3 })]);
    expect((await fetch(`${server.url}/control/faults`, { method: "POST", body: JSON.stringify({ kind: "boom" }) })).status).toBe(400);
    await fetch(`${server.url}/control/faults`, { method: "DELETE" });
    expect((await call()).finishReason).toBe("tool_calls");
  });

  it("clearing the faults ends a stall in progress: the held request is answered now, not when the stall runs out", async () => {
    await arm({ kind: "stall", stallMs: 600_000, phase: "before_headers" });
    const held = call();
    const faultsNow = async () => (await (await fetch(`${server.url}/control/faults`)).json()) as { faults: unknown[]; waiting: number };
    await expect.poll(faultsNow, { timeout: 10_000 }).toEqual({ faults: [], waiting: 1 });
    const cleared = (await (await fetch(`${server.url}/control/faults`, { method: "DELETE" })).json()) as { released: number };
    expect(cleared.released).toBe(1);
    // Answered as if the stall had run out: a normal completion, well before its 10 minutes.
    expect((await held).finishReason).toBe("tool_calls");
    expect(await faultsNow()).toEqual({ faults: [], waiting: 0 });
  });

  it("answers a malformed URL with an OpenAI-shaped 400 naming it, and keeps serving", async () => {
    const res = await fetch(`${server.url}/v1/models/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { message: 'malformed percent-encoding in the model id: "%E0%A4%A"', type: "invalid_request_error", param: null, code: "invalid_url" },
    });
    // An absolute-form request target that is no URL at all (raw HTTP: fetch would refuse to send it).
    const { port } = new URL(server.url);
    const raw = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port: Number(port), path: "http://[/", headers: { host: `127.0.0.1:${port}` } }, (r) => {
        let body = "";
        r.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on("error", reject).end();
    });
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.body)).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_url" } });
    expect(await (await fetch(`${server.url}/v1/models/scripted`)).json()).toMatchObject({ id: "scripted", object: "model" });
  });

  it("streams malformed tool arguments of scripted-tool-failure as raw strings", async () => {
    const result = await call({ model: "scripted-tool-failure" });
    expect(result.message.toolCalls[0]!.name).toBe("read_file");
    expect(() => JSON.parse(result.message.toolCalls[0]!.arguments)).toThrow();
  });
});

describe("effort through Chat Completions' reasoning_effort", () => {
  it("reports reasoning tokens inside the completion tokens, more at high than at low, none without an effort; streamed and not", async () => {
    for (const stream of [true, false]) {
      const none = await call({ stream });
      const low = await call({ stream, effort: "low" });
      const high = await call({ stream, effort: "high" });
      expect(none.usage.reasoningTokens).toBe(0);
      expect(low.usage.reasoningTokens).toBeGreaterThan(0);
      expect(high.usage.reasoningTokens).toBeGreaterThan(low.usage.reasoningTokens! * 4);
      // The same answer: effort changes how much the model thinks, not (here) what it does.
      expect(high.message.toolCalls.map((c) => c.name)).toEqual(none.message.toolCalls.map((c) => c.name));
      expect(high.usage.completionTokens - high.usage.reasoningTokens!).toBe(none.usage.completionTokens);
    }
  });

  it("refuses a reasoning_effort OpenAI does not define, naming the field", async () => {
    const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "x", maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: "scripted", messages, reasoning_effort: "extreme" as never })
      .then(() => null)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400 });
    expect(String((err as Error).message)).toContain("reasoning_effort");
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { TRPCError } from "@trpc/server";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { recordMcpServerStart } from "../../server/db/mcp-server-repository.ts";
import { OPENAI_EXAMPLE_PROFILE, seedDefaults, seedProfiles } from "../../server/db/seed.ts";
import { launchTask } from "../../server/domain/launch-task.ts";
import { callModel, resolveProvider } from "../../server/llm/provider.ts";
import { testProfileConnection } from "../../server/llm/test-connection.ts";
import { launchTools } from "../../server/tools/launch-tools.ts";
import { freePort } from "../support/ports.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Profiles through the real procedures against the test database: versions on every
// change and none on a no-op, validation naming field and limit with nothing stored, applyDocument
// idempotent with a dry run, archive refused while a task of the profile is active, audit rows; and
// "test connection" against a closed port and a tiny local provider that answers 401 / 404 (it IS
// the provider boundary).

const prisma = createPrismaClient(testDatabaseUrl());
const admin = createCaller({ prisma, actor: "profiles-admin", principal: testPrincipal("profiles-admin", ["admin"]) });
const operator = createCaller({ prisma, actor: "profiles-op", principal: testPrincipal("profiles-op", ["operator"]) });
const suffix = ulid().toLowerCase().slice(-8);
const name = (label: string) => `t-${label}-${suffix}`;

let provider: Server;
let providerUrl: string;

beforeAll(async () => {
  await seedDefaults(prisma);
  // A provider that knows one key and one model (the OpenAI error bodies, as the SDK reads them).
  provider = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (req.headers.authorization !== "Bearer good-key")
        return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
      const model = (JSON.parse(body || "{}") as { model?: string }).model;
      if (model !== "known-model")
        return send(404, { error: { message: `The model '${model}' does not exist`, type: "invalid_request_error", code: "model_not_found" } });
      send(200, {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 0,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: "p" }, finish_reason: "length" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise((resolve) => provider.close(resolve));
  await prisma.$disconnect();
});

async function refusal(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe("profile versions", () => {
  it("create is v1, a change makes v2, the same content again makes no version; copy and get", async () => {
    const n = name("ver");
    const created = await admin.profile.create({ spec: { name: n, model: "scripted", provider: "scripted", tools: ["read_file", "finish"], stepBudget: 30 } });
    expect(created).toMatchObject({ name: n, version: 1, archivedAt: null, spec: { stepBudget: 30, provider: "scripted", contextWindow: 128_000 } });
    const edited = await admin.profile.update({ name: n, spec: { ...created.spec, stepBudget: 31, systemPrompt: "v2" } });
    expect(edited.profile.version).toBe(2);
    expect(edited.changes.map((c) => c.field).sort()).toEqual(["stepBudget", "systemPrompt"]);
    const again = await admin.profile.update({ name: n, spec: edited.profile.spec });
    expect(again.changes).toEqual([]);
    expect(again.profile.version).toBe(2);
    const rows = await prisma.agentProfileVersion.findMany({ where: { profileId: created.id }, orderBy: { version: "asc" } });
    expect(rows.map((r) => [r.version, (r.snapshot as { stepBudget: number }).stepBudget])).toEqual([
      [1, 30],
      [2, 31],
    ]);
    // A write outside the router (SQL, the seed, setEgress) versions too: the trigger does it.
    await prisma.agentProfile.update({ where: { name: n }, data: { stepBudget: 32 } });
    expect((await operator.profile.get({ name: n })).versions.map((v) => v.version)).toEqual([3, 2, 1]);
    const copy = await admin.profile.copy({ from: n, to: name("copy") });
    expect(copy).toMatchObject({ version: 1, spec: { stepBudget: 32, systemPrompt: "v2" } });
    expect((await refusal(admin.profile.create({ spec: { name: n, model: "x" } }))).code).toBe("CONFLICT");
    // Audited like every mutation.
    expect(
      await prisma.auditEvent.count({ where: { action: { in: ["profile.create", "profile.update", "profile.copy"] }, actor: "profiles-admin" } }),
    ).toBeGreaterThanOrEqual(4);
  });

  it("refuses bad fields naming each field and its limit, and stores nothing; operators cannot write", async () => {
    const n = name("bad");
    const error = await refusal(
      admin.profile.create({
        spec: {
          name: n,
          model: "m",
          baseUrl: "ftp://models.example.com",
          tools: ["read_file", "rm_rf"],
          inputPricePerMTok: -1,
          contextWindow: 1000.5,
          apiKeyEnv: "sk-live-123",
          headers: { Authorization: "Bearer sk-live-123" },
        },
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    for (const text of [
      "baseUrl: must be an http(s) URL",
      'tools: unknown tool "rm_rf"',
      "inputPricePerMTok: must not be negative",
      "contextWindow: must be a whole number",
      "apiKeyEnv: the NAME",
      "headers.Authorization: a secret is never stored",
    ]) {
      expect(error.message).toContain(text);
    }
    expect(await prisma.agentProfile.count({ where: { name: n } })).toBe(0);
    expect((await refusal(operator.profile.create({ spec: { name: n, model: "m" } }))).code).toBe("FORBIDDEN");
  });

  it("archive is refused while a task of the profile is active, then archives; launch refuses an archived profile", async () => {
    const n = name("arch");
    const p = await admin.profile.create({ spec: { name: n, model: "scripted", provider: "scripted", tools: ["finish"] } });
    const taskId = `task_${ulid().toLowerCase()}`;
    await prisma.task.create({ data: { id: taskId, goal: "g", profileId: p.id, stepBudget: 5, workspace: "/tmp", status: "running" } });
    // The trigger recorded the version the task runs with.
    expect((await prisma.task.findUniqueOrThrow({ where: { id: taskId } })).profileVersionId).toBe(`${p.id}:v1`);
    const conflict = await refusal(admin.profile.archive({ name: n }));
    expect(conflict.code).toBe("CONFLICT");
    expect(conflict.message).toContain(taskId);
    await prisma.task.update({ where: { id: taskId }, data: { status: "completed" } });
    expect((await admin.profile.archive({ name: n })).changed).toBe(true);
    expect((await admin.profile.archive({ name: n })).changed).toBe(false);
    // History stays readable.
    expect((await operator.profile.get({ name: n })).versions).toHaveLength(1);
    expect((await operator.profile.records({})).some((r) => r.name === n)).toBe(false);
    expect((await operator.profile.records({ includeArchived: true })).some((r) => r.name === n)).toBe(true);
    const launch = await refusal(operator.task.launch({ goal: "x", profile: n }));
    expect(launch.message).toContain("archived");
  });
});

describe("profiles as code: applyDocument", () => {
  const doc = (n: string, stepBudget: number) => `
profiles:
  - name: ${n}-a
    model: llama3.1
    baseUrl: http://127.0.0.1:11434/v1
    tools: [read_file, finish]
    stepBudget: ${stepBudget}
  - name: ${n}-b
    model: gpt-4.1-mini
    apiKeyEnv: OPENAI_API_KEY
mcpServers:
  - name: mem-${suffix}
    transport: { type: stdio, command: node, args: [server.js] }
`;

  it("dry run shows the diff and writes nothing; apply creates; applying again changes nothing and says so", async () => {
    const n = name("doc");
    const dry = await admin.profile.applyDocument({ text: doc(n, 50), dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, changed: true });
    expect(dry.items.map((i) => [i.kind, i.name, i.action])).toEqual([
      ["mcpServer", `mem-${suffix}`, "create"],
      ["profile", `${n}-a`, "create"],
      ["profile", `${n}-b`, "create"],
    ]);
    expect(await prisma.agentProfile.count({ where: { name: { startsWith: n } } })).toBe(0);
    expect(await prisma.mcpServer.count({ where: { name: `mem-${suffix}` } })).toBe(0);

    const applied = await admin.profile.applyDocument({ text: doc(n, 50) });
    expect(applied.changed).toBe(true);
    expect(await prisma.agentProfile.count({ where: { name: { startsWith: n } } })).toBe(2);
    const again = await admin.profile.applyDocument({ text: doc(n, 50) });
    expect(again).toMatchObject({ changed: false, summary: expect.stringContaining("nothing to change") });
    expect(again.items.every((i) => i.action === "unchanged")).toBe(true);

    const diff = await admin.profile.applyDocument({ text: doc(n, 60), dryRun: true });
    expect(diff.items.find((i) => i.name === `${n}-a`)).toMatchObject({ action: "update", changes: [{ field: "stepBudget", from: 50, to: 60 }] });
    expect((await prisma.agentProfile.findUniqueOrThrow({ where: { name: `${n}-a` } })).stepBudget).toBe(50);
    await admin.profile.applyDocument({ text: doc(n, 60) });
    expect(await prisma.agentProfile.findUniqueOrThrow({ where: { name: `${n}-a` } })).toMatchObject({ stepBudget: 60, version: 2 });
  });

  it("one bad entry refuses the whole document, every problem listed, nothing stored", async () => {
    const n = name("docbad");
    const error = await refusal(
      admin.profile.applyDocument({
        text: `profiles:\n  - name: ${n}-ok\n    model: m\n  - name: ${n}-x\n    model: m\n    stepBudget: 0\n    colour: red\n    mcpServers: [{ server: nowhere }]\n`,
      }),
    );
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message).toContain(`profiles[1] "${n}-x": stepBudget: at least 1`);
    expect(error.message).toContain("colour");
    expect(await prisma.agentProfile.count({ where: { name: { startsWith: n } } })).toBe(0);
    expect((await refusal(admin.profile.applyDocument({ text: "profiles: [" }))).message).toContain("not valid YAML or JSON");
  });
});

describe("profiles as code: what a team configures must hold", () => {
  const unset = (label: string) => `LH_TEST_UNSET_${label}_${suffix.toUpperCase()}`;

  it("warns about each reference it cannot resolve, naming the entry, the field and the variable or tool; a launch refuses in the same words", async () => {
    const n = name("refs");
    const tools = `tools-${suffix}`;
    const envServer = `envs-${suffix}`;
    // A server that started before and listed two tools (its health, as a start records it).
    await admin.profile.applyDocument({ text: `mcpServers:\n  - name: ${tools}\n    transport: { type: stdio, command: node, args: [x.js] }\n` });
    const server = await prisma.mcpServer.findUniqueOrThrow({ where: { name: tools } });
    await recordMcpServerStart({
      prisma,
      name: tools,
      version: server.version,
      pid: 1,
      serverInfo: null,
      discoveredTools: [
        { name: "read_graph", description: "", inputSchema: { type: "object" } },
        { name: "create_entities", description: "", inputSchema: { type: "object" } },
      ],
    });
    const text = `
mcpServers:
  - name: ${envServer}
    transport: { type: stdio, command: node, args: [y.js], env: { API_TOKEN: { fromEnv: ${unset("TOKEN")} }, MODE: { value: ro } } }
profiles:
  - name: ${n}-key
    model: m
    baseUrl: http://127.0.0.1:9/v1
    apiKeyEnv: ${unset("KEY")}
    headers: { X-Team: "team \${${unset("HDR")}}" }
  - name: ${n}-mcp
    model: m
    provider: scripted
    mcpServers: [{ server: ${tools}, tools: [read_graph, delete_everything] }, { server: ${envServer} }]
`;
    const expected = [
      `MCP server "${envServer}": transport.env.API_TOKEN: the environment variable ${unset("TOKEN")} is not set where Longhaul runs`,
      `profile "${n}-key": apiKeyEnv: the environment variable ${unset("KEY")} is not set where Longhaul runs`,
      `profile "${n}-key": headers.X-Team: the environment variable ${unset("HDR")} is not set where Longhaul runs`,
      `profile "${n}-mcp": mcpServers[0].tools: the MCP server "${tools}" does not offer the tool "delete_everything" (it offers create_entities, read_graph)`,
    ];
    expect((await admin.profile.applyDocument({ text, dryRun: true })).warnings).toEqual(expected);
    const applied = await admin.profile.applyDocument({ text });
    expect(applied.warnings).toEqual(expected);
    expect(await prisma.agentProfile.count({ where: { name: { startsWith: n } } })).toBe(2);

    // A launch refuses while the variables stay unset, naming them; once set, it launches.
    const started: string[] = [];
    const portsWith = (variables: Record<string, string>) =>
      prismaLaunchPorts({ prisma, sendRunStarted: async (e) => void started.push(e.taskId), tools: launchTools, defaultWorkspace: process.cwd(), variables });
    const refused = await launchTask({ input: { goal: "Summarise README.md", profile: `${n}-key` }, actor: "profiles-op", ports: portsWith({}) }).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({ code: "PRECONDITION_FAILED" });
    expect((refused as Error).message).toContain(expected[1]);
    expect((refused as Error).message).toContain(expected[2]);
    expect((refused as Error).message).toContain("The launch is refused");
    const mcpRefused = await launchTask({ input: { goal: "x", profile: `${n}-mcp` }, actor: "profiles-op", ports: portsWith({}) }).catch((e: unknown) => e);
    expect((mcpRefused as Error).message).toContain(expected[0]);
    expect(started).toEqual([]);
    const ok = await launchTask({
      input: { goal: "Summarise README.md", profile: `${n}-key` },
      actor: "profiles-op",
      ports: portsWith({ [unset("KEY")]: "k", [unset("HDR")]: "h" }),
    });
    expect(started).toEqual([ok.taskId]);
  });

  it("refuses an oversized field of a 10 MB document naming the entry, the field and the limit; a bad MCP server entry by its name", async () => {
    const n = name("big");
    const prompt = "x".repeat(100) + "\n";
    const text = `profiles:\n  - name: ${n}\n    model: m\n    systemPrompt: |\n${("      " + prompt).repeat(100_000)}mcpServers:\n  - name: bad-${suffix}\n    transport: { type: stdio, command: "" }\n`;
    expect(text.length).toBeGreaterThan(10_000_000);
    const error = await refusal(admin.profile.applyDocument({ text }));
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.message.split("\n")).toEqual([
      `mcpServers[0] "bad-${suffix}": transport.command: must not be empty`,
      `profiles[0] "${n}": systemPrompt: at most 20000 characters (got 10100000)`,
    ]);
    expect(await prisma.agentProfile.count({ where: { name: n } })).toBe(0);
  });

  it("a profile applied from a file is managed as code: the browser's edits are refused until detached; no change makes no version", async () => {
    const n = name("code");
    const server = `code-${suffix}`;
    const text = `profiles:\n  - name: ${n}\n    model: m\n    systemPrompt: |\n      Be careful.\n      Keep the final newline.\nmcpServers:\n  - name: ${server}\n    transport: { type: stdio, command: node, args: [z.js] }\n`;
    await admin.profile.applyDocument({ text, source: "ops/profiles.yaml" });
    const got = await admin.profile.get({ name: n });
    expect(got.spec.systemPrompt).toBe("Be careful.\nKeep the final newline.\n");
    expect(got.managedAs).toMatchObject({ source: "ops/profiles.yaml", appliedBy: "profiles-admin" });
    expect((await admin.profile.records()).find((p) => p.name === n)?.managedAs?.source).toBe("ops/profiles.yaml");

    // Saved unchanged (as the browser sends it back): nothing changes, no version, no refusal.
    const same = await admin.profile.update({ name: n, spec: got.spec });
    expect(same.changes).toEqual([]);
    expect(same.profile.version).toBe(got.version);
    // A change is refused, saying where it is managed and the ways on; the egress fields and the MCP server too.
    const refused = await refusal(admin.profile.update({ name: n, spec: { ...got.spec, stepBudget: 7 } }));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toContain(`profile "${n}" is managed as code (from the file ops/profiles.yaml, applied by profiles-admin at `);
    expect(refused.message).toContain("change the file and apply it (npm run cli -- profiles apply), or detach it from the file first");
    expect((await refusal(admin.profile.setEgress({ name: n, emailAllow: ["x.org"], httpAllow: [], onBreach: null }))).code).toBe("CONFLICT");
    const serverSpec = { name: server, transport: { type: "stdio", command: "node", args: ["other.js"] } };
    expect((await refusal(admin.mcpServer.upsert({ spec: serverSpec }))).message).toContain(`MCP server "${server}" is managed as code`);
    expect((await admin.mcpServer.list()).find((x) => x.name === server)?.managedAs?.source).toBe("ops/profiles.yaml");
    expect((await admin.profile.get({ name: n })).version).toBe(got.version);
    // The server is detached on its own: then the API may change it, and a second detach changes nothing.
    expect(await admin.mcpServer.detach({ name: server })).toEqual({ name: server, detached: true, source: "ops/profiles.yaml" });
    expect(await admin.mcpServer.detach({ name: server })).toMatchObject({ detached: false });
    expect((await admin.mcpServer.upsert({ spec: serverSpec })).changed).toBe(true);
    expect((await refusal(admin.mcpServer.detach({ name: `none-${suffix}` }))).code).toBe("NOT_FOUND");

    // Detached on purpose: the browser may edit it; applying the file again manages it (and its content) as code again.
    expect(await admin.profile.detach({ name: n })).toEqual({ name: n, detached: true, source: "ops/profiles.yaml" });
    expect(await admin.profile.detach({ name: n })).toMatchObject({ detached: false });
    const edited = await admin.profile.update({ name: n, spec: { ...got.spec, stepBudget: 7 } });
    expect(edited.changes.map((c) => c.field)).toEqual(["stepBudget"]);
    const back = await admin.profile.applyDocument({ text, source: "ops/profiles.yaml", dryRun: true });
    expect(back.items.find((i) => i.name === n)).toMatchObject({ action: "update", changes: [{ field: "stepBudget", from: 7, to: 200 }] });
    await admin.profile.applyDocument({ text, source: "ops/profiles.yaml" });
    expect(await admin.profile.get({ name: n })).toMatchObject({ spec: { stepBudget: 200 }, managedAs: { source: "ops/profiles.yaml" } });
  });

  it("shows an MCP server's field diff as a profile's: the paths that change, stored → new", async () => {
    const server = `diff-${suffix}`;
    const doc = (arg: string, mode: string) =>
      `mcpServers:\n  - name: ${server}\n    transport: { type: stdio, command: node, args: [${arg}], env: { MODE: { value: ${mode} } } }\n`;
    const created = await admin.profile.applyDocument({ text: doc("a.js", "ro") });
    expect(created.items[0]).toMatchObject({ kind: "mcpServer", action: "create" });
    expect(created.items[0]!.changes).toContainEqual({ field: "transport.command", from: null, to: "node" });
    const dry = await admin.profile.applyDocument({ text: doc("b.js", "rw"), dryRun: true });
    expect(dry.items[0]).toMatchObject({
      kind: "mcpServer",
      action: "update",
      changes: [
        { field: "transport.args", from: ["a.js"], to: ["b.js"] },
        { field: "transport.env.MODE.value", from: "ro", to: "rw" },
      ],
    });
    expect((await admin.profile.applyDocument({ text: doc("a.js", "ro") })).items[0]).toMatchObject({ action: "unchanged", changes: [] });
  });
});

describe("test connection", () => {
  it("names a closed port unreachable, a wrong key 401, an unknown model; ok with the right key and model", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    const env = { GOOD_KEY: "good-key", BAD_KEY: "nope" };
    const unreachable = await testProfileConnection({ endpoint: { baseUrl: closed, apiKeyEnv: "GOOD_KEY" }, model: "known-model", variables: env });
    expect(unreachable).toMatchObject({ ok: false, kind: "unreachable" });
    expect(unreachable.ok === false && unreachable.message).toContain("ECONNREFUSED");
    const unauthorized = await testProfileConnection({ endpoint: { baseUrl: providerUrl, apiKeyEnv: "BAD_KEY" }, model: "known-model", variables: env });
    expect(unauthorized).toMatchObject({ ok: false, kind: "unauthorized" });
    expect(unauthorized.ok === false && unauthorized.message).toContain("401");
    expect(await testProfileConnection({ endpoint: { baseUrl: providerUrl, apiKeyEnv: "GOOD_KEY" }, model: "other", variables: env })).toMatchObject({
      ok: false,
      kind: "unknown_model",
    });
    expect(await testProfileConnection({ endpoint: { baseUrl: providerUrl, apiKeyEnv: "UNSET_KEY" }, model: "known-model", variables: env })).toMatchObject({
      ok: false,
      kind: "missing_key",
    });
    // This provider cannot stream: the test sends what a launch sends (streamed, with a tool), reads
    // the whole JSON answer, and says so.
    expect(await testProfileConnection({ endpoint: { baseUrl: providerUrl, apiKeyEnv: "GOOD_KEY" }, model: "known-model", variables: env })).toMatchObject({
      ok: true,
      model: "known-model",
      streamed: false,
      note: expect.stringMatching(/does not stream/),
    });
  });

  it("a launch's streamed call to a server that cannot stream gets the answer, not a cut stream", async () => {
    const res = await callModel({
      baseUrl: providerUrl,
      apiKey: "good-key",
      model: "known-model",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "finish", parameters: { type: "object", properties: {} } } }],
      stream: true,
    });
    expect(res).toMatchObject({ streamed: false, finishReason: "length", message: { content: "p" }, usage: { promptTokens: 1, completionTokens: 1 } });
    expect(res.streamFallback).toMatch(/does not stream/);
  });

  it("through the API for a saved profile (a closed port in words)", async () => {
    const n = name("conn");
    await admin.profile.create({ spec: { name: n, model: "m", baseUrl: `http://127.0.0.1:${await freePort()}/v1` } });
    expect(await admin.profile.testConnection({ name: n })).toMatchObject({ ok: false, kind: "unreachable" });
  });
});

describe("the seeded OpenAI example (OPENAI_API_KEY set)", () => {
  it("is seeded once, launched by name, resolved to OpenAI with the key; the scripted profiles stay on the scripted server", async () => {
    // Nothing is sent anywhere: the endpoints are resolved as the agent's model port resolves them (server/inngest/agent-ports.ts).
    const env = { OPENAI_API_KEY: "sk-test-never-sent", OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`, MODEL_PORT: "4102" };
    expect(await seedDefaults(prisma, env)).toBe(seedProfiles.length + 1);
    const { name } = OPENAI_EXAMPLE_PROFILE;
    const example = await operator.profile.get({ name });
    expect(example.spec).toMatchObject({ model: "gpt-4.1-mini", provider: "openai", baseUrl: "https://api.openai.com/v1", apiKeyEnv: "OPENAI_API_KEY" });
    const config = { MODEL_PORT: Number(env.MODEL_PORT), OPENAI_API_KEY: env.OPENAI_API_KEY, OPENAI_BASE_URL: env.OPENAI_BASE_URL };
    expect(resolveProvider({ endpoint: example.spec, config, variables: env })).toEqual({
      baseUrl: "https://api.openai.com/v1",
      apiKey: env.OPENAI_API_KEY,
      headers: {},
      source: "profile",
      wireFormat: "chat",
    });
    for (const p of seedProfiles) {
      const spec = (await operator.profile.get({ name: p.name })).spec;
      const wireFormat = p.provider === "scripted-anthropic" ? "messages" : p.provider === "scripted-responses" ? "responses" : "chat";
      expect(resolveProvider({ endpoint: spec, config, variables: env }), p.name).toEqual({
        // Anthropic's SDK adds /v1/messages itself.
        baseUrl: wireFormat === "messages" ? "http://127.0.0.1:4102" : "http://127.0.0.1:4102/v1",
        apiKey: null,
        headers: {},
        source: "scripted",
        wireFormat,
      });
    }

    // Launched by name: the task runs on the example's current version and its model.
    const started: { taskId: string; runId: string }[] = [];
    const ports = prismaLaunchPorts({
      prisma,
      sendRunStarted: async (e) => void started.push(e),
      tools: launchTools,
      defaultWorkspace: process.cwd(),
      variables: env,
    });
    const { taskId } = await launchTask({ input: { goal: "Summarise README.md", profile: name }, actor: "profiles-op", ports });
    expect(started.map((e) => e.taskId)).toEqual([taskId]);
    expect(await operator.task.get({ taskId })).toMatchObject({ profile: { name, model: "gpt-4.1-mini", version: example.version } });

    // Seeding again (every start does) keeps an admin's edit and makes no second profile.
    const description = `ours ${suffix}`;
    await admin.profile.update({ name, spec: { ...example.spec, description } });
    await seedDefaults(prisma, env);
    expect((await operator.profile.get({ name })).spec.description).toBe(description);
    expect(await prisma.agentProfile.count({ where: { name } })).toBe(1);
  });
});

import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient } from "../../server/db/client.ts";
import { listCommittedEffects, performExternalEffect, performInternalEffect, UnresolvedEffectError } from "../../server/tools/ledger.ts";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";
import { testDatabaseUrl } from "../support/database.ts";

const prisma = createPrismaClient(testDatabaseUrl(), { max: 12 });
let workspace: string;
let profileId: string;

beforeAll(async () => {
  workspace = mkdtempSync(path.join(tmpdir(), "longhaul-tools-int-"));
  const profile = await prisma.agentProfile.create({ data: { name: `tools-${randomUUID()}`, model: "scripted", tools: [] } });
  profileId = profile.id;
});
afterAll(async () => {
  await prisma.$disconnect();
  rmSync(workspace, { recursive: true, force: true });
});

/** A fresh task with one run; returns a context factory for steps of that run (or of new runs). */
async function newTask() {
  const taskId = `t-${randomUUID()}`;
  await prisma.task.create({ data: { id: taskId, goal: "test", profileId, stepBudget: 50, workspace } });
  const newRun = async (cause = "initial") => {
    const runId = `r-${randomUUID()}`;
    await prisma.run.create({ data: { id: runId, taskId, cause } });
    return (stepId: string): ToolContext => ({ prisma, taskId, runId, stepId, workspace });
  };
  return { taskId, newRun };
}

const email = { to: "compliance@example.com", subject: "License audit", body: "3 packages, 1 copyleft." };

async function ok(name: string, args: unknown, ctx: ToolContext): Promise<Record<string, unknown>> {
  const r = await executeToolCall({ name, rawArguments: JSON.stringify(args), ctx });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.output as Record<string, unknown>;
}

describe("send_email through the side-effect ledger", () => {
  it("same key 4× → one outbox row, the same messageId each time", async () => {
    const { taskId, newRun } = await newTask();
    const step = await newRun();
    const outputs = [];
    for (let i = 0; i < 4; i++) outputs.push(await ok("send_email", email, step("tool-3-1")));
    expect(outputs[0]).toEqual({ messageId: expect.stringMatching(/@longhaul\.local$/), deduplicated: false });
    for (const o of outputs) expect(o).toEqual(outputs[0]);
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(1);
    const ledger = await prisma.sideEffect.findMany({ where: { taskId } });
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ status: "committed", repeats: 3, tool: "send_email", stepId: "tool-3-1", result: outputs[0] });
    const outbox = await prisma.outboxMessage.findFirstOrThrow({ where: { taskId } });
    expect(outbox).toMatchObject({ messageId: outputs[0]!.messageId, idempotencyKey: ledger[0]!.idempotencyKey, ...email });
  });

  it("concurrent duplicates with the same key → exactly one effect", async () => {
    const { taskId, newRun } = await newTask();
    const step = await newRun();
    const outputs = await Promise.all(Array.from({ length: 8 }, () => ok("send_email", email, step("tool-5-0"))));
    for (const o of outputs) expect(o).toEqual(outputs[0]);
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(1);
    expect(await prisma.sideEffect.count({ where: { taskId } })).toBe(1);
  });

  it("a second run repeating the same email (same fingerprint, other key order) → recorded result, deduplicated, no new email", async () => {
    const { taskId, newRun } = await newTask();
    const first = await ok("send_email", email, (await newRun())("tool-7-0"));
    const resumed = await newRun("resume");
    const reordered = { body: email.body, subject: email.subject, to: email.to };
    const second = await ok("send_email", reordered, resumed("tool-2-0"));
    expect(second).toEqual({ messageId: first.messageId, deduplicated: true });
    // The resumed run's own key now answers the same way, still without a new email.
    expect(await ok("send_email", email, resumed("tool-2-0"))).toEqual(second);
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(1);
    const rows = await prisma.sideEffect.findMany({ where: { taskId }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.status)).toEqual(["committed", "committed"]);
    expect(rows[0]!.fingerprint).toBe(rows[1]!.fingerprint);
    // A different email in the resumed run is a new effect.
    const other = await ok("send_email", { ...email, subject: "License audit (corrected)" }, resumed("tool-4-0"));
    expect(other).toMatchObject({ deduplicated: false });
    expect(other.messageId).not.toBe(first.messageId);
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(2);
    const committed = await listCommittedEffects({ prisma, taskId });
    expect(committed.map((c) => c.stepId)).toEqual(["tool-7-0", "tool-2-0", "tool-4-0"]);
  });

  it("a replay whose recorded result lacks the tool's shape is refused naming the column and the effect's key", async () => {
    const { taskId, newRun } = await newTask();
    const step = await newRun();
    await ok("send_email", email, step("tool-6-0"));
    const { idempotencyKey } = await prisma.sideEffect.findFirstOrThrow({ where: { taskId } });
    await prisma.$executeRaw`UPDATE side_effect SET result = '{"messageId": 5}'::jsonb WHERE "idempotencyKey" = ${idempotencyKey}`;
    const replay = executeToolCall({ name: "send_email", rawArguments: JSON.stringify(email), ctx: step("tool-6-0") });
    await expect(replay).rejects.toMatchObject({ name: "JsonColumnError", column: "SideEffect.result", row: idempotencyKey });
    await expect(executeToolCall({ name: "send_email", rawArguments: JSON.stringify(email), ctx: step("tool-6-0") })).rejects.toThrow(/messageId: /);
  });

  it("another task sending the same email is not deduplicated against this one", async () => {
    const a = await newTask();
    const b = await newTask();
    const ra = await ok("send_email", email, (await a.newRun())("tool-1-0"));
    const rb = await ok("send_email", email, (await b.newRun())("tool-1-0"));
    expect(rb).toMatchObject({ deduplicated: false });
    expect(rb.messageId).not.toBe(ra.messageId);
  });

  it("reusing a key with different arguments is refused as an idempotency conflict", async () => {
    const { taskId, newRun } = await newTask();
    const step = await newRun();
    await ok("send_email", email, step("tool-9-0"));
    const r = await executeToolCall({ name: "send_email", rawArguments: JSON.stringify({ ...email, body: "changed" }), ctx: step("tool-9-0") });
    expect(r).toMatchObject({ ok: false, error: { code: "idempotency_conflict" } });
    expect(await prisma.outboxMessage.count({ where: { taskId } })).toBe(1);
  });

  it("throws (for the durable step to retry) when the database is unreachable", async () => {
    const { newRun } = await newTask();
    const ctx = (await newRun())("tool-1-0");
    const dead = createPrismaClient("postgresql://nobody:nothing@127.0.0.1:1/none");
    try {
      await expect(executeToolCall({ name: "send_email", rawArguments: JSON.stringify(email), ctx: { ...ctx, prisma: dead } })).rejects.toThrow();
    } finally {
      await dead.$disconnect();
    }
  });
});

describe("repeatable effects", () => {
  it("a tool that declares identical repeats legitimate performs them again in another run", async () => {
    const { taskId, newRun } = await newTask();
    let performed = 0;
    const effect = async (ctx: ToolContext) =>
      performInternalEffect({
        prisma,
        taskId,
        runId: ctx.runId,
        stepId: ctx.stepId,
        tool: "ping",
        args: { n: 1 },
        repeatable: true,
        perform: async () => ({ ping: ++performed }),
      });
    const first = await effect((await newRun())("tool-1-0"));
    const second = await effect((await newRun())("tool-1-0"));
    expect([first.outcome, second.outcome]).toEqual(["performed", "performed"]);
    expect(second.result).toEqual({ ping: 2 });
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(second.idempotencyKey).not.toBe(first.idempotencyKey);
  });
});

describe("external effects", () => {
  it("an intent without a result escalates unless the tool can ask the external system by key", async () => {
    const { taskId, newRun } = await newTask();
    const step = (await newRun())("tool-2-0");
    const sent = new Map<string, { receipt: string }>();
    const base = { prisma, taskId, runId: step.runId, stepId: step.stepId, tool: "post_webhook", args: { url: "https://example.com/hook" } };

    // The process "dies" inside the external call: the intent is committed, the result never is.
    await expect(
      performExternalEffect({
        ...base,
        perform: async ({ idempotencyKey }) => {
          sent.set(idempotencyKey, { receipt: "rcpt-1" });
          throw new Error("connection reset");
        },
      }),
    ).rejects.toThrow("connection reset");
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: "intent", result: null });

    // Replay without a way to ask: stop and escalate, never perform again.
    let performedAgain = false;
    await expect(performExternalEffect({ ...base, perform: async () => ((performedAgain = true), { receipt: "dup" }) })).rejects.toBeInstanceOf(
      UnresolvedEffectError,
    );
    expect(performedAgain).toBe(false);

    // Replay that asks the external system by key: it happened, so record and return its result.
    const resolved = await performExternalEffect({
      ...base,
      perform: async () => ((performedAgain = true), { receipt: "dup" }),
      resolveByKey: async ({ idempotencyKey }) => sent.get(idempotencyKey) ?? null,
    });
    expect(resolved).toMatchObject({ result: { receipt: "rcpt-1" }, outcome: "replayed" });
    expect(performedAgain).toBe(false);
    expect(await prisma.sideEffect.findFirstOrThrow({ where: { taskId } })).toMatchObject({ status: "committed", result: { receipt: "rcpt-1" } });
    // And from now on the key answers from the ledger.
    expect(await performExternalEffect({ ...base, perform: async () => ({ receipt: "never" }) })).toMatchObject({
      result: { receipt: "rcpt-1" },
      outcome: "replayed",
    });
  });
});

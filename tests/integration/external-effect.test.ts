import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { prismaDecidePorts } from "../../server/db/escalation-repository.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { decideEscalation, decideEscalationInputSchema, type EscalationDecision } from "../../server/domain/decide-escalation.ts";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { startAgentStack, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { sendRunStartedEvent } from "../support/checkpoint-helpers.ts";
import { TEST_EVENT_KEY } from "../support/executor-harness.ts";
import { freePort } from "../support/ports.ts";

// An effect on an external system (the http_post tool) on the real pieces: the demo POSTs its summary
// to a local receiver. Intent is recorded before the call and the result after; when the app dies
// between the two, the retried step finds an intent without a result and the run escalates
// `unresolved_effect` — a human says whether it happened, and the run goes on without guessing.

const LIMIT = 3;
let stack: AgentStack;
let receiver: Server;
let hookUrl = "";
/** What the receiver got: the Idempotency-Key header and the JSON body of each POST. */
const received: { key: string | undefined; body: Record<string, unknown> }[] = [];

beforeAll(async () => {
  const port = await freePort();
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      received.push({ key: req.headers["idempotency-key"] as string | undefined, body: JSON.parse(body) as Record<string, unknown> });
      res.setHeader("content-type", "application/json");
      res.end('{"accepted":true}');
    });
  });
  await new Promise<void>((r) => receiver.listen(port, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${port}/audit-hook`;
  process.env.LONGHAUL_HTTP_ALLOW = `http://127.0.0.1:${port}`; // inherited by the app child
  stack = await startAgentStack({ databaseUrl: inject("databaseUrl") });
});
afterAll(async () => {
  delete process.env.LONGHAUL_HTTP_ALLOW;
  receiver.close();
  const left = await stack.stop();
  expect(left.map((c) => c.name)).toEqual([]);
});

async function launch(): Promise<{ taskId: string; runId: string }> {
  const ports = prismaLaunchPorts({ prisma: stack.db, defaultWorkspace: WORKSPACE, sendRunStarted: (e) => sendRunStartedEvent(stack, e) });
  return launchTask({ input: launchTaskInputSchema.parse({ demo: { kind: "license-audit", limit: LIMIT, postUrl: hookUrl } }), actor: "external-test", ports });
}

async function postEvent(name: string, data: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${stack.executorUrl}/e/${TEST_EVENT_KEY}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify([{ name, data }]) });
  const body = (await res.json()) as { status?: number };
  if (body.status !== 200) throw new Error(`event API answered ${JSON.stringify(body)}`);
}

function decide(escalationId: string, decision: EscalationDecision) {
  return decideEscalation({
    input: decideEscalationInputSchema.parse({ escalationId, decision }),
    actor: "handler-c",
    ports: prismaDecidePorts({ prisma: stack.db, sendApplied: (e) => postEvent("longhaul/escalation.applied", e), sendRunStarted: (e) => sendRunStartedEvent(stack, e) }),
  });
}

const postsFor = (taskId: string) => received.filter((r) => r.key?.startsWith(`${taskId}:`));

/** Launches with the app armed to die right after the POST returned, before its result is recorded; restarts it. */
async function crashAfterThePost() {
  await stack.kill("app", "SIGTERM");
  const doomed = await stack.startApp({ crashAt: "tool:external-after-call" });
  const { taskId, runId } = await launch();
  expect(await doomed.exited).toBe(137);
  expect(doomed.output()).toContain("crash at tool:external-after-call (#1)");
  expect(postsFor(taskId)).toHaveLength(1);
  const intent = await stack.db.sideEffect.findFirstOrThrow({ where: { taskId, tool: "http_post" } });
  expect(intent.status).toBe("intent");
  await stack.startApp();
  expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
  const escalation = await stack.db.escalation.findFirstOrThrow({ where: { taskId } });
  expect(escalation.reason).toBe("unresolved_effect");
  expect(escalation.evidence).toMatchObject({ tool: "http_post", idempotencyKey: intent.idempotencyKey, arguments: { url: hookUrl } });
  expect(escalation.fingerprint).toBe(intent.fingerprint);
  // The retried step did not POST again: the outcome is unknown, so nothing was guessed.
  expect(postsFor(taskId)).toHaveLength(1);
  expect((await stack.db.step.findFirstOrThrow({ where: { runId, tool: "http_post" } })).output).toMatchObject({ error: { code: "unresolved_effect" } });
  return { taskId, runId, escalation, intent };
}

describe("effects on external systems", () => {
  it("POSTs once with the ledger's idempotency key and records the answer", async () => {
    const { taskId } = await launch();
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const posts = postsFor(taskId);
    const effect = await stack.db.sideEffect.findFirstOrThrow({ where: { taskId, tool: "http_post" } });
    expect(posts.map((p) => p.key)).toEqual([effect.idempotencyKey]);
    expect(posts[0]!.body).toMatchObject({ packages: LIMIT, report: "licenses.csv" });
    expect(effect).toMatchObject({ status: "committed", result: { status: 200, body: '{"accepted":true}' } });
    const fact = await stack.db.fact.findFirstOrThrow({ where: { taskId, key: "audit:post" } });
    expect(fact.value).toEqual({ url: hookUrl, status: 200 });
  });

  it("app killed between the POST and its record → unresolved_effect; 'it happened' → not sent again, the run completes", async () => {
    const { taskId, escalation, intent } = await crashAfterThePost();
    await decide(escalation.id, "approve");
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(postsFor(taskId)).toHaveLength(1);
    const settled = await stack.db.sideEffect.findUniqueOrThrow({ where: { idempotencyKey: intent.idempotencyKey } });
    expect(settled).toMatchObject({ status: "committed", result: { status: null, confirmedBy: "handler-c" } });
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    const again = await stack.db.step.findFirstOrThrow({ where: { runId: runs[1]!.id, tool: "http_post" } });
    expect(again).toMatchObject({ status: "completed", output: { deduplicated: true, confirmedBy: "handler-c" } });
    expect((await stack.db.fact.findFirstOrThrow({ where: { taskId, key: "audit:post" } })).value).toEqual({ url: hookUrl, status: null, confirmedBy: "handler-c" });
  });

  it("'it did not happen' → the resumed run POSTs again, under its own key, and completes", async () => {
    const { taskId, escalation, intent } = await crashAfterThePost();
    await decide(escalation.id, "reject");
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    const posts = postsFor(taskId);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.key).not.toBe(intent.idempotencyKey);
    expect(await stack.db.sideEffect.findUnique({ where: { idempotencyKey: intent.idempotencyKey } })).toBeNull();
    const committed = await stack.db.sideEffect.findMany({ where: { taskId, tool: "http_post" } });
    expect(committed.map((e) => `${e.idempotencyKey === posts[1]!.key} ${e.status}`)).toEqual(["true committed"]);
  });
});

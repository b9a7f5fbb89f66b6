import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EscalationDecision } from "../../server/domain/decide-escalation.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { startReceiver, useAgentStack, type Receiver } from "../support/fixtures.ts";

// An effect on an external system (the http_post tool) on the real pieces: the demo POSTs its summary
// to a local receiver. Intent is recorded before the call and the result after; when the app dies
// between the two, the retried step finds an intent without a result and the run escalates
// `unresolved_effect` — a human says whether it happened, and the run goes on without guessing.

const LIMIT = 3;
/** The audit's receiver: the Idempotency-Key header and the JSON body of each POST; answers `{"accepted":true}`. */
let receiver: Receiver<Record<string, unknown>>;
let hookUrl = "";
beforeAll(async () => {
  receiver = await startReceiver({ contentType: "application/json", body: '{"accepted":true}' });
  hookUrl = `${receiver.url}/audit-hook`;
  process.env.LONGHAUL_HTTP_ALLOW = receiver.url; // inherited by the app child
});
afterAll(async () => {
  delete process.env.LONGHAUL_HTTP_ALLOW;
  await receiver.close();
});

let stack: AgentStack;
useAgentStack((started) => (stack = started));

const launch = () => stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT, postUrl: hookUrl } }, actor: "external-test" });
const decide = (escalationId: string, decision: EscalationDecision) => stack.decide({ input: { escalationId, decision }, actor: "handler-c" });

const postsFor = (taskId: string) => receiver.received.filter((r) => r.key?.startsWith(`${taskId}:`));

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
    expect((await stack.db.fact.findFirstOrThrow({ where: { taskId, key: "audit:post" } })).value).toEqual({
      url: hookUrl,
      status: null,
      confirmedBy: "handler-c",
    });
  });

  it("'it did not happen' → the resumed run POSTs again, under its own key, and completes", async () => {
    const { taskId, escalation, intent } = await crashAfterThePost();
    await decide(escalation.id, "reject");
    const status = await stack.waitForTaskStatus(taskId);
    // Seen once under load (not reproduced since): the task ended waiting for a human again. Say why if it does.
    const escalations = await stack.db.escalation.findMany({
      where: { taskId },
      orderBy: { createdAt: "asc" },
      select: { reason: true, status: true, message: true },
    });
    expect({ status, escalations: escalations.length }, JSON.stringify(escalations)).toEqual({ status: "completed", escalations: 1 });
    const posts = postsFor(taskId);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.key).not.toBe(intent.idempotencyKey);
    expect(await stack.db.sideEffect.findUnique({ where: { idempotencyKey: intent.idempotencyKey } })).toBeNull();
    const committed = await stack.db.sideEffect.findMany({ where: { taskId, tool: "http_post" } });
    expect(committed.map((e) => `${e.idempotencyKey === posts[1]!.key} ${e.status}`)).toEqual(["true committed"]);
  });
});

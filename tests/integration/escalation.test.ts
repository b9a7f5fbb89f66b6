import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { prismaDecidePorts } from "../../server/db/escalation-repository.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import { decideEscalation, decideEscalationInputSchema, type EscalationDecision } from "../../server/domain/decide-escalation.ts";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { AppError } from "../../server/errors.ts";
import { startAgentStack, waitFor, WORKSPACE, type AgentStack } from "../support/agent-stack.ts";
import { TEST_EVENT_KEY } from "../support/executor-harness.ts";
import { freePort } from "../support/ports.ts";

// Detectors and escalations on the real pieces (app process with the real agent-run function, the
// executor process, the scripted model, PostgreSQL). Scenarios are chosen by model name, as with any
// provider: scripted-loop, scripted-budget.

let stack: AgentStack;
/** A local webhook receiver: what the app delivered (LONGHAUL_WEBHOOK_URL is inherited by the app child). */
const deliveries: { key: string | undefined; body: { text?: string; escalation?: { id: string; reason: string } } }[] = [];
let receiver: Server;

beforeAll(async () => {
  const port = await freePort();
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      deliveries.push({ key: req.headers["idempotency-key"] as string | undefined, body: JSON.parse(body) as (typeof deliveries)[number]["body"] });
      res.end("ok");
    });
  });
  await new Promise<void>((r) => receiver.listen(port, "127.0.0.1", r));
  process.env.LONGHAUL_WEBHOOK_URL = `http://127.0.0.1:${port}/hook`;
  stack = await startAgentStack({ databaseUrl: inject("databaseUrl") });
});
afterAll(async () => {
  delete process.env.LONGHAUL_WEBHOOK_URL;
  receiver.close();
  const left = await stack.stop();
  expect(left.map((c) => c.name)).toEqual([]);
});

async function postEvent(name: string, data: Record<string, unknown>, id?: string): Promise<void> {
  const res = await fetch(`${stack.executorUrl}/e/${TEST_EVENT_KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([{ name, data, ...(id ? { id } : {}) }]),
  });
  const body = (await res.json()) as { status?: number };
  if (body.status !== 200) throw new Error(`event API answered ${JSON.stringify(body)}`);
}

async function launchScenario(profile: string): Promise<{ taskId: string; runId: string }> {
  const ports = prismaLaunchPorts({
    prisma: stack.db,
    defaultWorkspace: WORKSPACE,
    sendRunStarted: ({ taskId, runId }) => postEvent("longhaul/run.started", { taskId, runId }, `run-started-${runId}`),
  });
  return launchTask({ input: launchTaskInputSchema.parse({ goal: SCENARIO_GOAL, profile }), actor: "escalation-test", ports });
}

function decide(escalationId: string, decision: EscalationDecision, extra: Record<string, unknown> = {}) {
  return decideEscalation({
    input: decideEscalationInputSchema.parse({ escalationId, decision, ...extra }),
    actor: "handler-a",
    ports: prismaDecidePorts({
      prisma: stack.db,
      sendApplied: (e) => postEvent("longhaul/escalation.applied", e),
      sendRunStarted: ({ taskId, runId, checkpointId }) => postEvent("longhaul/run.started", { taskId, runId, checkpointId }, `run-started-${runId}`),
    }),
  });
}

async function openEscalation(taskId: string) {
  return waitFor(`an open escalation of ${taskId}`, async () => (await stack.db.escalation.findFirst({ where: { taskId, status: "open" } })) ?? undefined, 60_000, 100);
}

describe("escalations", () => {
  it("a loop escalates on the 3rd identical call, is resumed with guidance, and completes", async () => {
    const { taskId, runId } = await launchScenario("scripted-loop");
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed", "dead_end"])).toBe("waiting_for_human");
    const esc = await openEscalation(taskId);
    expect(esc.reason).toBe("loop");

    // The third identical list_files call is the one that escalated: two before it, no fourth.
    const toolSteps = await stack.db.step.findMany({ where: { runId, kind: "tool" }, orderBy: { index: "asc" } });
    expect(toolSteps.map((s) => `${s.tool} ${JSON.stringify(s.arguments)}`)).toEqual(Array(3).fill('list_files {"path":"."}'));
    const alerts = await stack.db.alert.findMany({ where: { taskId, kind: "loop" }, orderBy: { createdAt: "asc" } });
    expect(alerts.map((a) => `${a.severity} ${a.stepId}`)).toEqual([`warning ${toolSteps[1]!.stepId}`, `critical ${toolSteps[2]!.stepId}`]);
    expect((await stack.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("escalated");
    // The handlers were told, once, with a key that identifies the delivery.
    const told = await waitFor("the escalation webhook", async () => deliveries.find((d) => d.body.escalation?.id === esc.id), 30_000, 100);
    expect(told.key).toBe(`${esc.id}:0`);
    expect(told.body.text).toContain("loop");

    await decide(esc.id, "resume", { guidance: "Stop listing the folder: read the README and finish." });
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end"], 60_000)).toBe("completed");
    const runs = await stack.db.run.findMany({ where: { taskId }, orderBy: { startedAt: "asc" } });
    expect(runs.map((r) => `${r.cause}:${r.status}`)).toEqual(["initial:escalated", "resume:completed"]);
    expect(runs[1]!.guidance).toBe("Stop listing the folder: read the README and finish.");
    const applied = await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } });
    expect(applied).toMatchObject({ status: "applied", decision: "resume", decidedBy: "handler-a", resultRunId: runs[1]!.id });
    // The decision is a human step on the timeline.
    expect(await stack.db.step.count({ where: { runId, kind: "human" } })).toBe(1);
  });

  it("a budget scenario stops at exactly its step ceiling and escalates", async () => {
    const profile = await stack.db.agentProfile.findUniqueOrThrow({ where: { name: "scripted-budget" } });
    const { taskId } = await launchScenario("scripted-budget");
    expect(await stack.waitForTaskStatus(taskId, ["waiting_for_human", "completed", "failed"])).toBe("waiting_for_human");
    const esc = await openEscalation(taskId);
    expect(esc.reason).toBe("budget");
    const used = await stack.db.step.count({ where: { run: { taskId }, kind: { in: ["model", "tool"] } } });
    expect(used).toBe(profile.stepBudget);
    const runs = await stack.db.run.findMany({ where: { taskId } });
    expect(runs.map((r) => `${r.status}:${r.endReason}`)).toEqual(["escalated:budget_exhausted"]);
  });

  it("a decision sent right after the escalation opens is applied once, and a concurrent second decision is refused", async () => {
    const { taskId } = await launchScenario("scripted-loop");
    const esc = await openEscalation(taskId); // decide as soon as the row exists, racing the run's wait
    const [first, second] = await Promise.allSettled([
      decide(esc.id, "dead_end", { deadEndReason: "the folder listing is all there is" }),
      decide(esc.id, "resume", { guidance: "try again" }),
    ]);
    const outcomes = [first, second].map((r) => r.status);
    expect(outcomes.sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = [first, second].find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(AppError);
    expect((rejected.reason as AppError).code).toBe("CONFLICT");
    const winner = (await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).decision;
    const expected = winner === "dead_end" ? "dead_end" : "completed";
    expect(await stack.waitForTaskStatus(taskId, ["dead_end", "completed", "cancelled"], 60_000)).toBe(expected);
    await waitFor("the decision applied", async () => ((await stack.db.escalation.findUniqueOrThrow({ where: { id: esc.id } })).status === "applied" ? true : undefined), 30_000, 100);
    expect(await stack.db.run.count({ where: { taskId } })).toBe(winner === "dead_end" ? 1 : 2);
  });
});

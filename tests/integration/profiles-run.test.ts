import { describe, expect, it } from "vitest";
import { createCaller } from "../../server/api/root.ts";
import { prismaForkPorts } from "../../server/db/fork-ports.ts";
import { forkTask } from "../../server/domain/fork-task.ts";
import { resumeTask } from "../../server/domain/resume-task.ts";
import type { AgentStack } from "../support/agent-stack.ts";
import { testResumePorts, waitForCheckpoints, waitForRunEnd } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { freePort } from "../support/ports.ts";
import { testPrincipal } from "../support/principals.ts";

// Versioned profiles on the real pieces (app process serving agent-run, executor process, scripted
// model server, test PostgreSQL):
// - a scripted profile talks to the scripted model server even with OPENAI_API_KEY and
//   OPENAI_BASE_URL set in the app's environment (here: a bogus key and a closed port);
// - a task keeps the profile version it launched with: an edit right after the launch (another
//   model, another prompt) changes neither its run nor its resume, and a fork branches with the
//   same version; the task page's query says which version.

const LIMIT = 6;
let stack: AgentStack;
useAgentStack((started) => (stack = started));
const admin = () => createCaller({ prisma: stack.db, actor: "profiles-run-admin", principal: testPrincipal("profiles-run-admin", ["admin"]) });

/** The models the task's recorded model calls went to, deduplicated. */
async function modelsOf(taskId: string, runId?: string): Promise<string[]> {
  const rows = await stack.db.modelCall.findMany({ where: { run: { taskId, ...(runId ? { id: runId } : {}) } }, select: { model: true, status: true } });
  expect(rows.length).toBeGreaterThan(0);
  return [...new Set(rows.map((r) => r.model))];
}

describe("profiles on a running agent", () => {
  it("a scripted profile hits the scripted server whatever OPENAI_* says", async () => {
    await stack.kill("app");
    const closed = `http://127.0.0.1:${await freePort()}/v1`;
    await stack.startApp({ env: { OPENAI_API_KEY: "sk-test-must-not-be-used", OPENAI_BASE_URL: closed } });
    const { taskId } = await stack.launchDemo({ limit: LIMIT });
    expect(await stack.waitForTaskStatus(taskId, undefined, 90_000)).toBe("completed");
    const calls = await stack.db.modelCall.findMany({ where: { run: { taskId } } });
    expect(calls.every((c) => c.status === "ok")).toBe(true);
    expect(new Set(calls.map((c) => c.model))).toEqual(new Set(["scripted"]));
  });

  it("a task keeps its launched version after an edit; its resume and its fork use it too", async () => {
    const base = (await admin().profile.get({ name: "scripted" })).spec;
    const name = `versioned-${Date.now()}`;
    const created = await admin().profile.create({ spec: { ...base, name } });
    expect(created.version).toBe(1);
    const { taskId, runId } = await stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, profile: name }, actor: "profiles-run" });
    // The edit lands while the task is queued or running: another model (one that gives up at once) and prompt.
    const edited = await admin().profile.update({ name, spec: { ...created.spec, model: "scripted-dead-end", systemPrompt: "EDITED" } });
    expect(edited.profile.version).toBe(2);
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: taskId } })).profileVersionId).toBe(`${created.id}:v1`);
    const status = await stack.waitForTaskStatus(taskId, undefined, 90_000);
    if (status !== "completed")
      console.error(
        JSON.stringify(await stack.db.escalation.findMany({ where: { taskId }, select: { reason: true, message: true } })),
        JSON.stringify(await stack.db.alert.findMany({ where: { taskId }, select: { kind: true, message: true } })),
      );
    expect(status).toBe("completed");
    expect(await modelsOf(taskId, runId)).toEqual(["scripted"]);
    const detail = await admin().task.get({ taskId });
    expect(detail.profile).toMatchObject({ name, version: 1, currentVersion: 2, model: "scripted" });

    // A new run of the same task from its first checkpoint (resumeTask, the path a resume takes; cause
    // "fork" because a completed task is not resumable otherwise): still on v1.
    const [cp1] = await waitForCheckpoints(stack.db, taskId, 1);
    await stack.waitForExecutorRun(runId);
    const resumed = await resumeTask({ taskId, checkpointId: cp1!.id, cause: "fork", actor: "profiles-run", ports: testResumePorts(stack) });
    await waitForRunEnd(stack.db, resumed.runId, 90_000);
    expect(await stack.waitForTaskStatus(taskId, undefined, 90_000)).toBe("completed");
    expect(await modelsOf(taskId, resumed.runId)).toEqual(["scripted"]);

    // A fork is a new task on the source's version, not the profile's current one.
    await stack.waitForExecutorRun(resumed.runId);
    const fork = await forkTask({
      taskId,
      checkpointId: cp1!.id,
      actor: "profiles-run",
      ports: prismaForkPorts({ prisma: stack.db, sendRunStarted: (e) => stack.sendEvent("longhaul/run.started", e, `run-started-${e.runId}`) }),
    });
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: fork.taskId } })).profileVersionId).toBe(`${created.id}:v1`);
    expect(await stack.waitForTaskStatus(fork.taskId, undefined, 90_000)).toBe("completed");
    expect(await modelsOf(fork.taskId)).toEqual(["scripted"]);

    // A task launched now gets v2 (and the dead-end model).
    const later = await stack.launch({ input: { demo: { kind: "license-audit", limit: LIMIT }, profile: name }, actor: "profiles-run" });
    expect((await stack.db.task.findUniqueOrThrow({ where: { id: later.taskId } })).profileVersionId).toBe(`${created.id}:v2`);
    expect(await stack.waitForTaskStatus(later.taskId, undefined, 90_000)).toBe("dead_end");
  });
});

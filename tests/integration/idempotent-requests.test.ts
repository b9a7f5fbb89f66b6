import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import type { createCaller as CreateCaller } from "../../server/api/root.ts";
import { waitFor, type AgentStack } from "../support/agent-stack.ts";
import { TEST_EVENT_KEY, TEST_SIGNING_KEY } from "../support/executor-harness.ts";
import { useAgentStack } from "../support/fixtures.ts";
import { testPrincipal } from "../support/principals.ts";

// Exactly once from the button: the same mutation sent twice at once with one idempotency key — a
// true double click — is one action, through the real tRPC procedures (in process, with the stack's
// PostgreSQL, and its executor receiving the run.started events), whatever the UI's disabled state does.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

let api: ReturnType<typeof CreateCaller>;
beforeAll(async () => {
  // The procedures send their events with the app's Inngest client: point it at this stack's executor
  // before the client module loads (it reads Inngest's own variables when created).
  process.env.INNGEST_BASE_URL = stack.executorUrl;
  process.env.INNGEST_EVENT_KEY = TEST_EVENT_KEY;
  process.env.INNGEST_SIGNING_KEY = TEST_SIGNING_KEY;
  delete process.env.INNGEST_DEV;
  const { createCaller } = await import("../../server/api/root.ts");
  api = createCaller({ prisma: stack.db, actor: "key-op", principal: { ...testPrincipal("key-op"), userId: null, tokenId: "tok-key-op" } });
});

const key = (label: string) => `${label}-${Math.random().toString(36).slice(2)}-${Date.now()}`;

async function taskWithCheckpoint(): Promise<{ taskId: string; checkpointId: string }> {
  const { taskId } = await stack.launchDemo({ limit: 3 });
  await stack.waitForTaskStatus(taskId, ["completed"], 120_000);
  const cp = await waitFor(
    `a checkpoint of ${taskId}`,
    () => stack.db.checkpoint.findFirst({ where: { taskId }, orderBy: { seq: "asc" } }).then((c) => c ?? undefined),
    30_000,
    50,
  );
  return { taskId, checkpointId: cp.id };
}

describe("idempotency keys", () => {
  it("makes two concurrent forks with one key one fork, and answers both with it", async () => {
    const { taskId, checkpointId } = await taskWithCheckpoint();
    const k = key("fork");
    const [a, b] = await Promise.all([api.task.fork({ taskId, checkpointId, idempotencyKey: k }), api.task.fork({ taskId, checkpointId, idempotencyKey: k })]);
    expect(b).toEqual(a);
    expect(await stack.db.task.count({ where: { forkedFromTaskId: taskId } })).toBe(1);
    // Later, the same key again: the same answer, still one fork.
    expect(await api.task.fork({ taskId, checkpointId, idempotencyKey: k })).toEqual(a);
    expect(await stack.db.task.count({ where: { forkedFromTaskId: taskId } })).toBe(1);
    // The same key for another request is refused, naming the key.
    const other = api.task.fork({ taskId, checkpointId, guidance: "do it differently", idempotencyKey: k });
    await expect(other).rejects.toBeInstanceOf(TRPCError);
    await expect(other).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining(`idempotencyKey: "${k}" was already used`) as unknown });
    // Without a key, two forks are two forks (the key is what makes them one).
    await Promise.all([api.task.fork({ taskId, checkpointId }), api.task.fork({ taskId, checkpointId })]);
    expect(await stack.db.task.count({ where: { forkedFromTaskId: taskId } })).toBe(3);
  }, 240_000);

  it("makes two concurrent launches with one launch key one task, with no error for either", async () => {
    const k = key("launch");
    const input = { demo: { kind: "license-audit" as const, limit: 2 }, launchKey: k };
    const [a, b] = await Promise.all([api.task.launch(input), api.task.launch(input)]);
    expect(b.taskId).toBe(a.taskId);
    expect(await stack.db.task.count({ where: { launchKey: k } })).toBe(1);
  }, 120_000);

  it("makes two concurrent batch starts with one key one batch", async () => {
    // A task still running (a long audit), so a batch cancel takes it.
    const { taskId } = await stack.launchDemo({ limit: 400 });
    await stack.waitForTaskStatus(taskId, ["running"], 60_000);
    const k = key("batch");
    const input = { action: "cancel" as const, selection: { taskIds: [taskId] }, idempotencyKey: k };
    const [a, b] = await Promise.all([api.task.batchStart(input), api.task.batchStart(input)]);
    expect(b.batchId).toBe(a.batchId);
    expect(await stack.db.batchOperation.count({ where: { selection: { equals: { taskIds: [taskId] } } } })).toBe(1);
  }, 240_000);
});

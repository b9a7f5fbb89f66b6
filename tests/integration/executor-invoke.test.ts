import { NonRetriableError, openai } from "inngest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutorHandle } from "../../server/executor/index.ts";
import { runIdForEvent, sendEvent, startTestApp, startTestExecutor, testClient, waitForRunStatus, type TestApp } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// step.invoke against real inngest@4.24.0 functions (the InvokeFunction opcode as the SDK sends
// it, docs/INNGEST-PROTOCOL.md §2.12): the target starts with the data (plus the
// `_inngest` correlation object), the step resolves with its output or its error, and a timeout
// ends the wait with an error. Checkpoint and classic protocol.
for (const checkpointing of [true, false]) {
  describe(`executor: step.invoke (${checkpointing ? "checkpoint" : "classic"} mode)`, () => {
    const tag = checkpointing ? "icp" : "icl";
    let executor: ExecutorHandle;
    let app: TestApp;

    beforeAll(async () => {
      executor = await startTestExecutor(testDatabaseUrl(), { checkpointing });
      const client = testClient(`inv-${tag}`, executor.url);
      const child = client.createFunction({ id: "child", retries: 0, triggers: [{ event: `${tag}/child` }] }, async ({ event, step }) => {
        const n = Number(event.data.n);
        if (n < 0) throw new NonRetriableError(`negative: ${n}`);
        if (n === 0) await step.sleep("forever", "1h");
        const doubled = await step.run("double", () => n * 2);
        return { doubled, hasInngest: typeof (event.data as { _inngest?: unknown })._inngest === "object" };
      });
      const parent = client.createFunction({ id: "parent", retries: 0, triggers: [{ event: `${tag}/parent` }] }, async ({ event, step }) => {
        const before = await step.run("before", () => "b");
        const result = await step
          .invoke("call-child", { function: child, data: { n: Number(event.data.n) }, timeout: "1s" })
          .then((r) => ({ ok: r }))
          .catch((error: unknown) => ({ failed: `${(error as Error).name}: ${(error as Error).message}` }));
        const after = await step.run("after", () => "a");
        return { before, result, after };
      });
      const ai = client.createFunction({ id: "ai", retries: 0, triggers: [{ event: `${tag}/ai` }] }, async ({ step }) =>
        step.ai.infer("infer", { model: openai({ model: "gpt-4o-mini", apiKey: "sk-test" }), body: { messages: [{ role: "user", content: "hi" }] } }),
      );
      app = await startTestApp(client, [child, parent, ai]);
      await executor.sync(app.url);
    });

    afterAll(async () => {
      await app?.stop();
      await executor?.stop();
    });

    it("resolves with the invoked function's output; the child got the data and _inngest", async () => {
      const runId = await runIdForEvent(executor.db, `inv-${tag}-parent`, await sendEvent(executor.url, `${tag}/parent`, { n: 21 }));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run).toMatchObject({ status: "completed", output: { before: "b", result: { ok: { doubled: 42, hasInngest: true } }, after: "a" } });
      const children = await executor.db.executorRun.findMany({ where: { functionId: `inv-${tag}-child` } });
      expect(children.filter((c) => (c.event as { data: { n: number } }).data.n === 21)).toHaveLength(1);
    });

    it("resolves with the invoked function's error when it fails", async () => {
      const runId = await runIdForEvent(executor.db, `inv-${tag}-parent`, await sendEvent(executor.url, `${tag}/parent`, { n: -1 }));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect((run.output as { result: { failed: string } }).result.failed).toContain("negative: -1");
    });

    it("honours the invoke timeout: the step errors while the child goes on", async () => {
      const runId = await runIdForEvent(executor.db, `inv-${tag}-parent`, await sendEvent(executor.url, `${tag}/parent`, { n: 0 }));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("completed");
      expect((run.output as { result: { failed: string } }).result.failed).toMatch(/timed out/i);
    });

    it("an opcode the executor still does not implement (AIGateway from step.ai.infer) fails the run loudly, never a silent skip", async () => {
      const runId = await runIdForEvent(executor.db, `inv-${tag}-ai`, await sendEvent(executor.url, `${tag}/ai`));
      const run = await waitForRunStatus(executor.url, runId);
      expect(run.status).toBe("failed");
      expect(run.error).toMatchObject({ name: "UnsupportedOpcode", message: expect.stringContaining("AIGateway") as unknown });
    });
  });
}

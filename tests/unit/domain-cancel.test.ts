import { describe, expect, it } from "vitest";
import { cancelTask, type CancelPorts, type CancelWriteOutcome } from "../../server/domain/cancel-task.ts";
import { AppError } from "../../server/errors.ts";

/** In-memory ports: one task with a status and runs; the guarded write behaves like the Prisma one. */
function fakePorts(task: { status: string; runs: { id: string; status: string; endReason: string | null }[] } | null) {
  const sent: string[] = [];
  const writes: string[] = [];
  const ports: CancelPorts = {
    cancelTaskAndRuns: async (taskId, actor): Promise<CancelWriteOutcome> => {
      if (!task) return { kind: "not_found" };
      if (["completed", "dead_end", "failed", "cancelled"].includes(task.status)) {
        const status = task.status as "completed" | "dead_end" | "failed" | "cancelled";
        const runIds = status === "cancelled" ? task.runs.filter((r) => r.status === "cancelled" && r.endReason === "cancelled_by_user").map((r) => r.id) : [];
        return { kind: "ended", status, runIds };
      }
      writes.push(`${taskId} cancelled by ${actor}`);
      task.status = "cancelled";
      const live = task.runs.filter((r) => r.status === "running" || r.status === "escalated");
      for (const r of live) Object.assign(r, { status: "cancelled", endReason: "cancelled_by_user" });
      return { kind: "cancelled", runIds: live.map((r) => r.id) };
    },
    sendRunCancelled: async ({ runId }) => {
      sent.push(runId);
    },
  };
  return { ports, sent, writes, task };
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => (e instanceof AppError ? `${e.code}: ${e.message}` : String(e)),
  );

describe("cancelTask", () => {
  it("cancels a running task and its live runs, and tells the executor about each", async () => {
    const f = fakePorts({
      status: "running",
      runs: [
        { id: "r1", status: "running", endReason: null },
        { id: "r0", status: "completed", endReason: "checkpoint" },
      ],
    });
    await expect(cancelTask({ taskId: "t", actor: "op", ports: f.ports })).resolves.toEqual({
      taskId: "t",
      status: "cancelled",
      cancelledRuns: ["r1"],
      alreadyCancelled: false,
    });
    expect(f.sent).toEqual(["r1"]);
    expect(f.writes).toEqual(["t cancelled by op"]);
  });

  it("cancelling again returns the task unchanged with a note, not an error", async () => {
    const f = fakePorts({ status: "running", runs: [{ id: "r1", status: "running", endReason: null }] });
    await cancelTask({ taskId: "t", actor: "op", ports: f.ports });
    const second = await cancelTask({ taskId: "t", actor: "someone-else", ports: f.ports });
    expect(second).toEqual({ taskId: "t", status: "cancelled", cancelledRuns: [], alreadyCancelled: true, note: "already cancelled" });
    expect(f.writes).toEqual(["t cancelled by op"]); // the second call wrote nothing
    expect(f.task?.status).toBe("cancelled");
  });

  it("a repeat re-sends the (deduplicated) cancel events, so a send that failed the first time still reaches the executor", async () => {
    const f = fakePorts({ status: "waiting_for_human", runs: [{ id: "r1", status: "escalated", endReason: "loop" }] });
    let failSend = true;
    const flaky: CancelPorts = {
      ...f.ports,
      sendRunCancelled: async (e) => {
        if (failSend) throw new Error("executor unreachable");
        await f.ports.sendRunCancelled(e);
      },
    };
    await expect(cancelTask({ taskId: "t", actor: "op", ports: flaky })).rejects.toThrow("executor unreachable");
    expect(f.task?.status).toBe("cancelled"); // the write stands
    failSend = false;
    await expect(cancelTask({ taskId: "t", actor: "op", ports: flaky })).resolves.toMatchObject({ alreadyCancelled: true, note: "already cancelled" });
    expect(f.sent).toEqual(["r1"]);
  });

  it.each(["completed", "dead_end", "failed"])("a %s task is a CONFLICT naming its status", async (status) => {
    const f = fakePorts({ status, runs: [{ id: "r1", status: "completed", endReason: null }] });
    await expect(codeOf(cancelTask({ taskId: "t", actor: "op", ports: f.ports }))).resolves.toBe(
      `CONFLICT: task t cannot be cancelled: it has already ended with status ${status}`,
    );
    expect(f.sent).toEqual([]);
    expect(f.task?.status).toBe(status);
  });

  it("an unknown task is NOT_FOUND", async () => {
    await expect(codeOf(cancelTask({ taskId: "nope", actor: "op", ports: fakePorts(null).ports }))).resolves.toBe("NOT_FOUND: task nope not found");
  });
});

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SCENARIO_GOAL } from "../../server/db/seed.ts";
import { findExecutorRuns, waitFor, type AgentStack } from "../support/agent-stack.ts";
import { createTestProfile, launchDemoWithProfile } from "../support/checkpoint-helpers.ts";
import { useAgentStack } from "../support/fixtures.ts";

// The wiring of the `agent-run` function, pinned: the exact step ids, in order, that each segment of
// a run memoizes on the executor. Inngest replays a function from the top on every request and
// matches each step by its id, so a run already in flight when the app is redeployed only goes on
// if the new code asks for the same ids in the same order. A change to these arrays must be
// deliberate (and, for runs in flight, a new function version) — never a side effect of a refactor.

let stack: AgentStack;
useAgentStack((started) => (stack = started));

/** How Inngest's SDK names a step to the executor: the sha1 (hex) of its id (inngest's engine `hashId`). */
const hashId = (id: string) => createHash("sha1").update(id).digest("hex");

/**
 * The step ids each executor run (segment) of Longhaul run `runId` memoized, in completion order.
 * The executor keeps the hashed id; a hash of one of `known` reads back as that id, anything else
 * as the name the SDK gave it (a `step.run`'s id, or e.g. `waitForEvent <event>`) and its hash.
 */
async function stepIdsPerSegment(runId: string, known: string[]): Promise<string[][]> {
  const byHash = new Map(known.map((id) => [hashId(id), id]));
  const out: string[][] = [];
  for (const segment of await findExecutorRuns(stack.db, runId)) {
    const rows = await stack.db.executorStepResult.findMany({ where: { runId: segment.id }, orderBy: { seq: "asc" }, select: { name: true, hashedId: true } });
    out.push(rows.map((r) => byHash.get(r.hashedId) ?? `${r.name} (${r.hashedId})`));
  }
  return out;
}

describe("agent-run wiring: the step-id sequence", () => {
  it("of a checkpointed run (the license-audit demo, an interval checkpoint every 8 steps)", async () => {
    const profile = await createTestProfile(stack.db, "wiring-cp", { checkpointEverySteps: 8 });
    const { taskId, runId } = await launchDemoWithProfile(stack, { limit: 2, profile });
    expect(await stack.waitForTaskStatus(taskId)).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    // Four segments: three end at an interval checkpoint (`checkpoint-<n>`, counted by `segment-<s>`, continued by
    // `continue-<n>`); the last takes a checkpoint before the risky send_email (`checkpoint-8-1`) after the egress
    // gate and the approval lookup of that call, and ends.
    const expected: string[][] = [
      ["start", "model-0", "tool-0-0", "model-1", "tool-1-0", "tool-1-1", "tool-1-2", "tool-1-3", "tool-1-4", "checkpoint-2", "segment-2", "continue-2"],
      [
        "start",
        "model-2",
        "tool-2-0",
        "model-3",
        "tool-3-0",
        "tool-3-1",
        "tool-3-2",
        "tool-3-3",
        "model-4",
        "tool-4-0",
        "tool-4-1",
        "tool-4-2",
        "tool-4-3",
        "tool-4-4",
        "checkpoint-5",
        "segment-3",
        "continue-5",
      ],
      ["start", "model-5", "tool-5-0", "tool-5-1", "model-6", "tool-6-0", "tool-6-1", "model-7", "tool-7-0", "checkpoint-8", "segment-4", "continue-8"],
      ["start", "model-8", "tool-8-0", "checkpoint-8-1", "egress-8-1", "approval-8-1", "tool-8-1", "model-9", "tool-9-0", "tool-9-1", "end"],
    ];
    expect(await stepIdsPerSegment(runId, expected.flat())).toEqual(expected);
  });

  it("of an escalated run (the loop scenario) and of the run its resume decision starts", async () => {
    const { taskId, runId } = await stack.launch({ input: { goal: SCENARIO_GOAL, profile: "scripted-loop" }, actor: "wiring-test" });
    const esc = await stack.waitForOpenEscalation(taskId);
    // Decide only once the escalated run waits for the decision (its waitForEvent pause exists), so
    // the sequence is the one of a decision that arrives during the wait, not a race with its first read.
    await waitFor(
      "the escalated run to wait for its decision",
      async () => {
        const segments = await findExecutorRuns(stack.db, runId);
        const last = segments.at(-1);
        if (!last) return undefined;
        return (await stack.db.executorPause.findFirst({ where: { runId: last.id, kind: "wait" } })) ?? undefined;
      },
      60_000,
      100,
    );
    await stack.decide({
      input: { escalationId: esc.id, decision: "resume", guidance: "Stop listing the folder: read the README and finish." },
      actor: "handler-a",
    });
    expect(await stack.waitForTaskStatus(taskId, ["completed", "failed", "dead_end"])).toBe("completed");
    expect(await stack.waitForExecutorRun(runId)).toBe("completed");
    const resumed = await stack.db.run.findFirstOrThrow({ where: { taskId, cause: "resume" } });
    expect(await stack.waitForExecutorRun(resumed.id)).toBe("completed");
    // The loop alert, the stall alert, the checkpoint before escalating, the escalation, its notice, the first read
    // of the decision, the wait (`await-decision-3-0`, woken by the decision) and the read after it; the resumed run
    // goes on from turn 3 and ends.
    const expected: { escalated: string[][]; resumed: string[][] } = {
      escalated: [
        [
          "start",
          "model-0",
          "tool-0-0",
          "model-1",
          "tool-1-0",
          "alert-tool-1-0-loop",
          "model-2",
          "alert-model-2-stall",
          "tool-2-0",
          "checkpoint-3",
          "escalate-3",
          "notify-3",
          "decision-3-0",
          "await-decision-3-0",
          "decision-3-0-applied",
        ],
      ],
      resumed: [["start", "model-3", "tool-3-0", "model-4", "tool-4-0", "tool-4-1", "model-5", "tool-5-0", "model-6", "tool-6-0", "end"]],
    };
    const known = [...expected.escalated.flat(), ...expected.resumed.flat()];
    expect({ escalated: await stepIdsPerSegment(runId, known), resumed: await stepIdsPerSegment(resumed.id, known) }).toEqual(expected);
  });
});

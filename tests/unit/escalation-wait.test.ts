import { describe, expect, it } from "vitest";
import { escalationWaitAction, type DecisionView } from "../../server/domain/escalation-wait.ts";

// The escalated run's wait policy as a table (agent-run's `escalate` wires it to steps).

const view = (v: Partial<DecisionView>): DecisionView => ({ status: "open", decision: null, due: false, resultRunId: null, ...v });
const R = 3;

describe("escalationWaitAction", () => {
  it.each([
    { name: "read, open: wait this round", phase: "read", round: 0, d: view({}), want: { kind: "wait", round: 0 } },
    {
      name: "read, applied: done with the resumed run",
      phase: "read",
      round: 1,
      d: view({ status: "applied", decision: "resume", resultRunId: "run_2" }),
      want: { kind: "done", decision: "resume", resumedAs: "run_2" },
    },
    {
      name: "read, applied dead end: done, no run",
      phase: "read",
      round: 0,
      d: view({ status: "applied", decision: "dead_end" }),
      want: { kind: "done", decision: "dead_end", resumedAs: null },
    },
    {
      name: "read, decided and due: the run applies it",
      phase: "read",
      round: 2,
      d: view({ status: "decided", decision: "approve", due: true }),
      want: { kind: "apply" },
    },
    {
      name: "read, decided inside its undo window: wait (escalation-apply applies it)",
      phase: "read",
      round: 0,
      d: view({ status: "decided", decision: "approve", due: false }),
      want: { kind: "wait", round: 0 },
    },
    {
      name: "read, applying by another caller: wait",
      phase: "read",
      round: 0,
      d: view({ status: "applying", decision: "resume" }),
      want: { kind: "wait", round: 0 },
    },
    {
      name: "woken: done with what the row says",
      phase: "woken",
      round: 0,
      d: view({ status: "applied", decision: "cancel" }),
      want: { kind: "done", decision: "cancel", resumedAs: null },
    },
    {
      name: "timed out, still open: re-notify round 1, wait again",
      phase: "timed_out",
      round: 0,
      d: view({}),
      want: { kind: "after_timeout", renotifyRound: 1, nextRound: 1 },
    },
    {
      name: "timed out, decided meanwhile: no re-notification, next round reads it",
      phase: "timed_out",
      round: 1,
      d: view({ status: "decided", due: false }),
      want: { kind: "after_timeout", renotifyRound: null, nextRound: 2 },
    },
    {
      name: "timed out in the last round, open: re-notified once more, then overdue",
      phase: "timed_out",
      round: R,
      d: view({}),
      want: { kind: "after_timeout", renotifyRound: R + 1, nextRound: null },
    },
    {
      name: "timed out in the last round, decided: overdue without re-notifying",
      phase: "timed_out",
      round: R,
      d: view({ status: "decided" }),
      want: { kind: "after_timeout", renotifyRound: null, nextRound: null },
    },
  ] as const)("$name", ({ phase, round, d, want }) => {
    expect(escalationWaitAction({ phase, round, decision: d, rounds: R })).toEqual(want);
  });

  it("an escalation nobody answers is re-notified once per round, rounds 1 … R+1, then the run stops waiting", () => {
    const renotified: number[] = [];
    let round: number | null = 0;
    while (round !== null) {
      expect(escalationWaitAction({ phase: "read", round, decision: view({}), rounds: R }).kind).toBe("wait");
      const next = escalationWaitAction({ phase: "timed_out", round, decision: view({}), rounds: R });
      if (next.kind !== "after_timeout") throw new Error("expected after_timeout");
      if (next.renotifyRound !== null) renotified.push(next.renotifyRound);
      round = next.nextRound;
    }
    expect(renotified).toEqual([1, 2, 3, 4]);
  });
});

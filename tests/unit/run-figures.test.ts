import { describe, expect, it } from "vitest";
import { clampToNow, costSplitWords, latestStep, observedNow } from "../../components/tasks/run/run-figures.ts";
import { coveredMs, runClock, type ClockTask } from "../../lib/contracts/run-clock.ts";
import { waitTimeoutWords } from "../../lib/contracts/escalation-timeout.ts";
import { chainRoleForRound, escalationTimeoutPlan } from "../../server/domain/escalation-wait.ts";

const T0 = Date.UTC(2026, 11, 3, 10, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000);

describe("the live header's clock", () => {
  it("measures spans with overlaps counted once", () => {
    expect(coveredMs([])).toBe(0);
    expect(
      coveredMs([
        { from: 0, to: 10 },
        { from: 5, to: 15 },
        { from: 20, to: 25 },
      ]),
    ).toBe(20);
    expect(coveredMs([{ from: 10, to: 5 }])).toBe(0);
  });

  it("ticks while a run works", () => {
    const t: ClockTask = { status: "running", endedAt: null, runs: [{ startedAt: at(0), endedAt: null }], escalations: [] };
    expect(runClock(t, at(30).getTime())).toEqual({ activeMs: 30_000, waitingMs: 0, waiting: false, running: true });
    expect(runClock(t, at(31).getTime()).activeMs).toBe(31_000);
  });

  it("stands still while waiting for a human and counts the wait apart; goes on after the decision resumes it", () => {
    const waiting: ClockTask = {
      status: "waiting_for_human",
      endedAt: null,
      runs: [{ startedAt: at(0), endedAt: at(60) }],
      escalations: [{ status: "open", createdAt: at(60), decidedAt: null }],
    };
    const a = runClock(waiting, at(600).getTime());
    const b = runClock(waiting, at(900).getTime());
    expect([a.activeMs, b.activeMs]).toEqual([60_000, 60_000]);
    expect([a.waitingMs, b.waitingMs]).toEqual([540_000, 840_000]);
    expect([b.waiting, b.running]).toEqual([true, false]);

    const resumed: ClockTask = {
      status: "running",
      endedAt: null,
      runs: [
        { startedAt: at(0), endedAt: at(60) },
        { startedAt: at(905), endedAt: null },
      ],
      escalations: [{ status: "applied", createdAt: at(60), decidedAt: at(900), appliedAt: at(905) }],
    };
    expect(runClock(resumed, at(1000).getTime())).toEqual({ activeMs: 155_000, waitingMs: 840_000, waiting: false, running: true });
  });

  it("does not count a wait inside a run as active, and stops every clock when the task has ended", () => {
    const t: ClockTask = {
      status: "cancelled",
      endedAt: at(100),
      runs: [{ startedAt: at(0), endedAt: null }],
      escalations: [{ status: "open", createdAt: at(40), decidedAt: null }],
    };
    const c = runClock(t, at(5000).getTime());
    expect(c).toEqual({ activeMs: 40_000, waitingMs: 60_000, waiting: false, running: false });
  });

  it("never puts now before a time the server recorded (a server clock ahead), and clamps a future time to now", () => {
    expect(observedNow(1000, [new Date(500), null, undefined])).toBe(1000);
    expect(observedNow(1000, [new Date(500), new Date(4000)])).toBe(4000);
    expect(clampToNow(new Date(5000), 1000)?.getTime()).toBe(1000);
    expect(clampToNow(new Date(500), 1000)?.getTime()).toBe(500);
    expect(clampToNow(null, 1000)).toBeNull();
  });
});

describe("the header's last step", () => {
  it("is the later of task.get's and the timeline's, whichever has one", () => {
    const fromTask = { stepId: "checkpoint-3", at: at(30) };
    const fromRows = { stepId: "model-0", at: at(5) };
    expect(latestStep(fromTask, fromRows)).toBe(fromTask);
    expect(latestStep({ ...fromTask, at: at(1) }, fromRows)).toBe(fromRows);
    expect(latestStep(null, fromRows)).toBe(fromRows);
    expect(latestStep(fromTask, undefined)).toBe(fromTask);
    expect(latestStep(null, null)).toBeNull();
  });
});

describe("what happens when a wait for a human times out", () => {
  const fmt = (d: Date) => d.toISOString();
  const base = { createdAt: at(0), assigneeRole: "handler", dueMinutes: 60 };

  it("plans reminder k of 4 to the chain's role, one due time after the last notification, then stops", () => {
    const opened = escalationTimeoutPlan({ ...base, notifications: 1, lastNotifiedAt: at(1), chain: ["operator", "admin"] });
    expect(opened).toEqual({ reminders: 4, remindersSent: 0, nextReminder: 1, nextRole: "operator", nextTimeoutAt: at(3601), rearmMinutes: 60 });
    const second = escalationTimeoutPlan({ ...base, notifications: 3, lastNotifiedAt: at(7200), assigneeRole: "admin", chain: ["operator", "admin"] });
    expect([second.nextReminder, second.nextRole, second.nextTimeoutAt]).toEqual([3, "admin", at(10_800)]);
    const done = escalationTimeoutPlan({ ...base, notifications: 5, lastNotifiedAt: at(9000), chain: [] });
    expect([done.nextReminder, done.nextRole, done.nextTimeoutAt]).toEqual([null, null, null]);
    expect([0, 1, 2, 3].map((k) => chainRoleForRound(["a", "b"], k))).toEqual([null, "a", "b", "b"]);
  });

  it("says it in words where the wait is shown", () => {
    const same = escalationTimeoutPlan({ ...base, notifications: 1, lastNotifiedAt: null, chain: [] });
    expect(waitTimeoutWords(same, "handler", fmt)).toBe(
      "If no one decides by 2026-12-03T11:00:00.000Z: reminder 1 of 4 goes to the handler role again and the next comes 60 min later. " +
        "After reminder 4 no more are sent; the task still waits on a human: the escalation stays open and a decision still applies. Nothing is decided on its own.",
    );
    const moved = escalationTimeoutPlan({ ...base, notifications: 1, lastNotifiedAt: null, chain: ["admin"] });
    expect(waitTimeoutWords(moved, "handler", fmt)).toContain("reminder 1 of 4 moves it to the admin role (the profile's chain)");
    // The last reminder: none follows it (escalationWaitAction: no next round), so no "next comes".
    const last = escalationTimeoutPlan({ ...base, notifications: 4, lastNotifiedAt: null, chain: [] });
    expect(last.nextReminder).toBe(4);
    expect(waitTimeoutWords(last, "handler", fmt)).toMatch(
      /the last reminder \(4 of 4\) goes to the handler role again and no more follow; the task still waits on a human: the escalation stays open/,
    );
    expect(waitTimeoutWords(last, "handler", fmt)).not.toContain("next comes");
    const toPerson = escalationTimeoutPlan({ ...base, notifications: 1, lastNotifiedAt: null, chain: ["user:Dana Reyes"] });
    expect(waitTimeoutWords(toPerson, "handler", fmt)).toContain("reminder 1 of 4 moves it to Dana Reyes (the profile's chain)");
    const withPerson = escalationTimeoutPlan({ ...base, notifications: 2, lastNotifiedAt: null, assigneeRole: "user:Dana Reyes", chain: ["user:Dana Reyes"] });
    expect(waitTimeoutWords(withPerson, "user:Dana Reyes", fmt)).toContain("reminder 2 of 4 goes to Dana Reyes again");
    const done = escalationTimeoutPlan({ ...base, notifications: 5, lastNotifiedAt: null, chain: [] });
    expect(waitTimeoutWords(done, "handler", fmt)).toBe(
      "All 4 reminders went out and no more will be sent; the task still waits on a human: the escalation stays open and a decision still applies. Nothing is decided on its own.",
    );
  });
});

describe("the header's cost and its split", () => {
  it("names parts that add up to the total, only those that happened", () => {
    const usd = (n: number) => `$${n.toFixed(4)}`;
    const waste = { retryUsd: 0.003, replayUsd: 0, discardedUsd: 0, restartUsd: 0 };
    expect(costSplitWords({ costUsd: 0.053, productiveUsd: 0.04, checkpointUsd: 0.01, wastedUsd: 0.003, waste }, usd)).toBe(
      "$0.0400 productive · $0.0100 on checkpoints · $0.0030 retried",
    );
    const none = { retryUsd: 0, replayUsd: 0, discardedUsd: 0, restartUsd: 0 };
    expect(costSplitWords({ costUsd: 0, productiveUsd: 0, checkpointUsd: 0, wastedUsd: 0, waste: none }, usd)).toBe("");
  });
});

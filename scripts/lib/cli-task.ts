/**
 * The JSON the CLI prints for a task (`status`, `launch`, `launch --wait`) and for `list`, from the
 * API's task.get and task.list answers. Pure, no I/O. Step figures are the one step count of
 * lib/contracts/step-count.ts: `steps` = the budget's steps (model + tool), with checkpoint and human
 * steps counted apart, the same figures the run page's header, the task list and /costs show.
 */
import type { inferRouterOutputs } from "@trpc/server";
import { runClock } from "../../lib/contracts/run-clock.ts";
import type { AppRouter } from "../../server/api/root.ts";
import { terminalSafe } from "./cli-text.ts";
import { dueWords, waitTimeoutWords } from "../../lib/contracts/escalation-timeout.ts";
import { isoUtc } from "../../lib/contracts/dates.ts";

type TaskDetail = inferRouterOutputs<AppRouter>["task"]["get"];
type TaskListRow = inferRouterOutputs<AppRouter>["task"]["list"]["rows"][number];

/** The `status` line of one task: status, the budget's steps (+ checkpoint and human steps apart), budgets, facts, outputs, tokens, USD, result, alerts, the latest escalation. `now` closes a running task's active time or wait (`durationMs`, `waitingMs`). */
export function taskSummaryJson(t: TaskDetail, now: Date = new Date()) {
  const clock = t.startedAt ? runClock(t, now.getTime()) : null;
  return {
    id: t.id,
    status: t.status,
    /** The budget's steps (model + tool). */
    steps: t.usage.steps,
    checkpointSteps: t.usage.checkpointSteps,
    humanSteps: t.usage.humanSteps,
    budgets: { steps: t.stepBudget, tokens: t.tokenBudget, usd: t.costBudgetUsd },
    facts: t.facts.length,
    artifacts: t.artifacts.map((a) => ({ name: a.name, mime: a.mime, bytes: a.bytes })),
    outbox: t.outbox.map((m) => ({ to: m.to, subject: m.subject, messageId: m.messageId })),
    /** Prompt + completion tokens of the run's steps (the token budget's count, the run page's figure). */
    tokens: t.usage.promptTokens + t.usage.completionTokens,
    /** Prompt + completion tokens of every model call (the per-task CSV's "Tokens billed"), and the calls outside the steps by cause. */
    billedTokens: t.usage.billedTokens,
    tokensByCause: t.usage.tokensByCause,
    costUsd: Number(t.usage.costUsd.toFixed(6)),
    result: t.result,
    deadEndReason: t.deadEndReason,
    error: t.error,
    /** Active time, ms: the runs' time less the time waiting for a human (lib/contracts/run-clock.ts, the run page header's figure); null before the task starts. */
    durationMs: clock ? clock.activeMs : null,
    /** Time an escalation was open (waiting for a human), ms, counted apart from `durationMs`; null before the task starts. */
    waitingMs: clock ? clock.waitingMs : null,
    alerts: t.alerts.map((a) => ({ kind: a.kind, severity: a.severity, step: a.stepId })),
    /**
     * The latest escalation with its clock as every page shows it (lib/contracts/escalation-timeout.ts
     * escalationClock): when the answer was due, overdue, what the run does (`reminding`,
     * `reminders_over`: still waiting on a human with every reminder sent, `decided`), the next reminder.
     */
    escalation: t.escalations[0] ? escalationJson(t.escalations[0]) : null,
  };
}

/** An escalation of task.get as `status` prints it. */
function escalationJson(e: TaskDetail["escalations"][number]) {
  return {
    id: e.id,
    reason: e.reason,
    status: e.status,
    dueAt: e.dueAt.toISOString(),
    overdue: e.overdue,
    phase: e.phase,
    remindersSent: e.remindersSent,
    nextReminderAt: e.nextReminderAt?.toISOString() ?? null,
    /** The card's and the run page's words: "Overdue since …" and what happens when the wait times out. */
    words: [dueWords(e, isoUtc), ...(e.timeout ? [waitTimeoutWords(e.timeout, e.assigneeRole, isoUtc)] : [])].join(". "),
  };
}

/** `list`'s JSON row: id, status, the budget's steps, checkpoint and human steps apart, and the eval run of an eval cell (else null). */
export function taskListJson(r: TaskListRow) {
  return { id: r.id, status: r.status, steps: r.stepsUsed, checkpointSteps: r.checkpointSteps, humanSteps: r.humanSteps, evalRunId: r.evalRun?.id ?? null };
}

/** `list`'s stderr line: id, status, steps / budget, the steps counted apart ("+2 ckpt +1 human"), "[eval <suite>]" for an eval cell, the goal's start. */
export function taskListLine(r: TaskListRow): string {
  const apart = [r.checkpointSteps ? `+${r.checkpointSteps} ckpt` : "", r.humanSteps ? `+${r.humanSteps} human` : ""].filter(Boolean).join(" ");
  const cell = r.evalRun ? `[eval ${terminalSafe(r.evalRun.suite)}] ` : "";
  return `${r.id}  ${r.status.padEnd(18)} ${`${r.stepsUsed}/${r.stepBudget}`.padEnd(9)} ${apart.padEnd(18)} ${cell}${terminalSafe(r.goal.slice(0, 70))}`;
}

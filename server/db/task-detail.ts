import { alertDetail } from "../domain/alert-detail.ts";
import { clockOf } from "../domain/escalation-wait.ts";
import { parseSmokeSpec, smokeReport } from "../domain/profile-smoke.ts";
import { AppError } from "../errors.ts";
import { TOKEN_CAUSE_WORDS, type NonProductiveCause } from "../../lib/contracts/token-split.ts";
import type { PrismaClient } from "./client.ts";
import { dbNow } from "./escalation-repository.ts";
import { taskSpend } from "./run-repository.ts";
import { IS_BUDGET_STEP, STEP_COUNT_COLUMNS, stepCountsOf, type StepCountColumns } from "./step-counts.ts";
import { taskProfile, type TaskProfile } from "./task-profile.ts";

/**
 * Everything the run page shows except step payloads (loaded per step): `task.get`'s output, whose
 * schema (server/api/output-schemas-task.ts taskDetailOutput) is strict. Read in this order, one
 * statement after the other: the task with its rows, the checkpoints it and its forks branched from,
 * the steps' counts and tokens, the latest step, the alerts' steps, the smoke test's tool steps, the
 * spend, the billed tokens, where it came from, the profile it launched with, and the database clock
 * when an escalation is open.
 * @throws AppError NOT_FOUND when there is no task `taskId`.
 */
export async function getTaskDetailOrThrow({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const task = await taskWithRowsOrThrow({ prisma, taskId });
  // The reads below depend only on the task row, not on each other: asked three at a time, the page
  // waits for about the slowest (the step totals over every step of a long task) rather than for
  // their sum (the task row and these reads, one after another, took 280 ms for a 50,000-step
  // task, the task row ~100 ms of it). Three, not all nine:
  // one page view must not take every connection of the web process's pool (10), which the run
  // functions it serves share.
  const [steps, spend, tokens, forkSeqs, alertSteps, smoke, origin, launched, now] = await inBatches(3, [
    () => stepTotals({ prisma, taskId }),
    () => taskSpend({ prisma, taskId }),
    () => taskBilledTokens({ prisma, taskId }),
    () => forkCheckpointSeqs({ prisma, task }),
    () => alertStepKeys({ prisma, alerts: task.alerts }),
    () => smokeTest({ prisma, taskId, smoke: task.smoke }),
    () => taskOrigin({ prisma, taskId, templateId: task.templateId }),
    // The profile as the task runs it: the version it launched with (a later edit does not change it).
    () => taskProfile({ prisma, taskId }),
    () => escalationClockNow({ prisma, escalations: task.escalations }),
  ] as const);
  return {
    ...taskHeader(task, launched),
    /** Where the task came from: its launch template or its eval run and case (TaskOrigin). */
    origin,
    ...forkLineage(task, forkSeqs),
    runs: task.runs.map(runRow),
    /**
     * A profile smoke test: the model it ran on (the offline smoke model, not the profile's own,
     * named in `profileModel`), whether side effects were included, and per tool its class,
     * outcome (called · error · refused · skipped · not_called), latency and detail. Null otherwise.
     */
    smoke,
    checkpointCount: task._count.checkpoints,
    /** The task has a good (resumable) checkpoint: what a fork branches from (lib/contracts/task-actions.ts forkOffer). */
    hasGoodCheckpoint: task.checkpoints.length > 0,
    /**
     * Alerts, oldest first: `detail` is what the alert's evidence says beyond its message (for MCP
     * kinds: the tools added, removed and changed; a server's exit), `onTimeline` whether `stepId`
     * is a step of the timeline (an alert raised at a segment's start is not).
     */
    alerts: task.alerts.map((a) => alertRow(a, alertSteps)),
    escalations: task.escalations.map((e) => escalationRow(e, launched, now)),
    ...taskRecords(task),
    usage: usageOf(steps, spend, tokens),
  };
}

/**
 * Runs `tasks` at most `width` at a time and resolves with their results in order (rejects with the
 * first failure, as Promise.all does).
 */
async function inBatches<T extends readonly (() => Promise<unknown>)[]>(
  width: number,
  tasks: T,
): Promise<{ -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> }> {
  const results: unknown[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return results as { -readonly [K in keyof T]: Awaited<ReturnType<T[K]>> };
}

/**
 * The task with the rows the page lists: profile name and version, runs (oldest first), artifacts
 * (metadata only), outbox and current facts (oldest first), the checkpoint count and whether one is
 * good, alerts (oldest 500), escalations (newest first), forks (oldest 200).
 * @throws AppError NOT_FOUND when there is no task `taskId`.
 */
async function taskWithRowsOrThrow({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const task = await prisma.task.findUnique({
    where: { id: taskId },
    include: {
      profile: { select: { name: true, version: true } },
      runs: { orderBy: { startedAt: "asc" } },
      artifacts: { select: { id: true, name: true, mime: true, bytes: true, stepId: true, runId: true, createdAt: true }, orderBy: { createdAt: "asc" } },
      outbox: { orderBy: { createdAt: "asc" } },
      facts: { where: { superseded: false }, orderBy: { createdAt: "asc" } },
      _count: { select: { checkpoints: true } },
      // The good checkpoints (resumable): a fork branches from one, so Fork… is offered only with one.
      checkpoints: { where: { good: true }, select: { id: true }, take: 1 },
      alerts: { orderBy: { createdAt: "asc" }, take: 500 },
      escalations: { orderBy: { createdAt: "desc" } },
      forks: { select: { id: true, status: true, forkedFromCheckpointId: true, createdAt: true, createdBy: true }, orderBy: { createdAt: "asc" }, take: 200 },
    },
  });
  if (!task) throw new AppError("NOT_FOUND", `task ${taskId} not found`);
  return task;
}

/** The task as {@link taskWithRowsOrThrow} reads it. */
type TaskWithRows = Awaited<ReturnType<typeof taskWithRowsOrThrow>>;

/**
 * The `seq` of the checkpoints the task's lineage names: `source` of the one this task was forked
 * from (null for no fork, or a checkpoint since deleted), `forks` by id of those its forks branched from.
 */
async function forkCheckpointSeqs({ prisma, task }: { prisma: PrismaClient; task: TaskWithRows }) {
  const forkedFrom = task.forks.map((f) => f.forkedFromCheckpointId).filter((id): id is string => id !== null);
  const [source, forked] = await Promise.all([
    task.forkedFromCheckpointId ? prisma.checkpoint.findUnique({ where: { id: task.forkedFromCheckpointId }, select: { seq: true } }) : null,
    // No forks, no query: most tasks have none.
    forkedFrom.length ? prisma.checkpoint.findMany({ where: { id: { in: forkedFrom } }, select: { id: true, seq: true } }) : [],
  ]);
  return { source, forks: new Map(forked.map((c) => [c.id, c.seq])) };
}

/**
 * The task's steps over all runs (step-counts.ts): the counts (budget, checkpoint, human), the budget
 * steps' prompt, cached and completion tokens (null with no step), and the step that ended — or,
 * still running, started — last (null with no step).
 */
async function stepTotals({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const [[usage], [last]] = await Promise.all([
    prisma.$queryRaw<
      ({
        prompt: bigint | null;
        cached: bigint | null;
        completion: bigint | null;
        lastAt: Date | null;
      } & StepCountColumns)[]
    >`
    SELECT ${STEP_COUNT_COLUMNS}, max(coalesce(s."endedAt", s."startedAt")) AS "lastAt",
           sum(s."promptTokens") FILTER (WHERE ${IS_BUDGET_STEP}) AS prompt,
           sum(s."cachedTokens") FILTER (WHERE ${IS_BUDGET_STEP}) AS cached, sum(s."completionTokens") FILTER (WHERE ${IS_BUDGET_STEP}) AS completion
    FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ${taskId}`,
    // The latest step on its own: a top-1 sort, where ordering every step inside the aggregate above
    // sorted all of them (50,000 steps spilled 5 MB to disk).
    prisma.$queryRaw<{ runId: string; stepId: string }[]>`
    SELECT s."runId", s."stepId" FROM step s JOIN run r ON r.id = s."runId" WHERE r."taskId" = ${taskId}
    ORDER BY coalesce(s."endedAt", s."startedAt") DESC, s.index DESC LIMIT 1`,
  ]);
  const counts = stepCountsOf(usage);
  const [lastRunId, lastStepId] = last ? [last.runId, last.stepId] : [];
  return {
    counts,
    prompt: usage?.prompt,
    cached: usage?.cached,
    completion: usage?.completion,
    lastStep: usage?.lastAt && lastRunId && lastStepId ? { runId: lastRunId, stepId: lastStepId, at: usage.lastAt } : null,
  };
}

/** Which of the alerts' `(runId, stepId)` are steps of the timeline, as `runId\tstepId` keys (no query without alerts). */
async function alertStepKeys({ prisma, alerts }: { prisma: PrismaClient; alerts: TaskWithRows["alerts"] }): Promise<Set<string>> {
  return new Set(
    (alerts.length
      ? await prisma.step.findMany({
          where: { OR: alerts.map((a) => ({ runId: a.runId, stepId: a.stepId })) },
          select: { runId: true, stepId: true },
        })
      : []
    ).map((s) => `${s.runId}\t${s.stepId}`),
  );
}

/**
 * The task's profile smoke test report (domain/profile-smoke.ts smokeReport over the task's calls of
 * the tools it names, oldest first), or null when the task is no smoke test (no query then).
 */
async function smokeTest({ prisma, taskId, smoke }: { prisma: PrismaClient; taskId: string; smoke: TaskWithRows["smoke"] }) {
  const smokeSpec = parseSmokeSpec(smoke);
  return smokeSpec
    ? {
        model: smokeSpec.model,
        profileModel: smokeSpec.profileModel,
        includeSideEffects: smokeSpec.includeSideEffects,
        tools: smokeReport(
          smokeSpec,
          await prisma.step.findMany({
            where: { run: { taskId }, kind: "tool", tool: { in: smokeSpec.tools.map((t) => t.name) } },
            select: { runId: true, stepId: true, tool: true, status: true, error: true, durationMs: true },
            orderBy: [{ startedAt: "asc" }, { index: "asc" }],
          }),
        ),
      }
    : null;
}

/** The instant escalation clocks are read at: the database clock, as the inbox reads them (one clock for every page), when one is open; else this process's. */
async function escalationClockNow({ prisma, escalations }: { prisma: PrismaClient; escalations: TaskWithRows["escalations"] }): Promise<Date> {
  return escalations.some((e) => e.status === "open") ? await dbNow(prisma) : new Date();
}

/** The task's own fields, from `id` to `endedAt`, with the profile version it runs. */
function taskHeader(task: TaskWithRows, launched: TaskProfile) {
  return {
    id: task.id,
    goal: task.goal,
    status: task.status,
    /** Who launched it (the operator who may cancel, resume and fork it). */
    createdBy: task.createdBy,
    /** The profile version the task runs with: its name now, and model / base URL / provider of that version. */
    profile: {
      name: task.profile.name,
      model: launched.spec.model,
      baseUrl: launched.spec.baseUrl,
      provider: launched.spec.provider,
      version: launched.version,
      /** The profile's current version (newer than `version` when it was edited since the launch). */
      currentVersion: task.profile.version,
    },
    stepBudget: task.stepBudget,
    tokenBudget: task.tokenBudget,
    /** Dollar ceiling in USD (null = none). */
    costBudgetUsd: task.costBudgetUsd === null ? null : Number(task.costBudgetUsd),
    requireApproval: task.requireApproval,
    workspace: task.workspace,
    input: task.input,
    result: task.result,
    /** completed · completed_with_gaps (result.gaps) · null before the task completes. */
    outcome: task.outcome,
    deadEndReason: task.deadEndReason,
    error: task.error,
    createdAt: task.createdAt,
    startedAt: task.startedAt,
    endedAt: task.endedAt,
  };
}

/** Where the task branched from and what branched from it, with the checkpoints' seqs from {@link forkCheckpointSeqs}. */
function forkLineage(task: TaskWithRows, seqs: Awaited<ReturnType<typeof forkCheckpointSeqs>>) {
  return {
    /** The task and checkpoint this one was forked from (a branch), or null. */
    forkedFrom: task.forkedFromTaskId
      ? { taskId: task.forkedFromTaskId, checkpointId: task.forkedFromCheckpointId, checkpointSeq: seqs.source?.seq ?? null }
      : null,
    /** Tasks forked from this one, oldest first (at most 200), with the checkpoint each branched from. */
    forks: task.forks.map((f) => ({
      taskId: f.id,
      status: f.status,
      checkpointId: f.forkedFromCheckpointId,
      checkpointSeq: f.forkedFromCheckpointId ? (seqs.forks.get(f.forkedFromCheckpointId) ?? null) : null,
      createdAt: f.createdAt,
      createdBy: f.createdBy,
    })),
  };
}

/** One run of the task as the page lists it. */
function runRow(r: TaskWithRows["runs"][number]) {
  return {
    id: r.id,
    cause: r.cause,
    status: r.status,
    endReason: r.endReason,
    error: r.error,
    startedAt: r.startedAt,
    endedAt: r.endedAt,
    segments: r.segments,
    fromCheckpointId: r.fromCheckpointId,
    guidance: r.guidance,
    checkpointRequested: r.checkpointRequestedAt !== null,
  };
}

/** One alert, its evidence read into `detail`, `onTimeline` from {@link alertStepKeys}. */
function alertRow(a: TaskWithRows["alerts"][number], timelineSteps: Set<string>) {
  return {
    id: a.id,
    kind: a.kind,
    severity: a.severity,
    stepId: a.stepId,
    runId: a.runId,
    message: a.message,
    createdAt: a.createdAt,
    detail: alertDetail(a.kind, a.evidence),
    onTimeline: timelineSteps.has(`${a.runId}\t${a.stepId}`),
  };
}

/** One escalation with its clock, read at `now` by the chain and due time of the profile version the task runs. */
function escalationRow(e: TaskWithRows["escalations"][number], launched: TaskProfile, now: Date) {
  return {
    id: e.id,
    reason: e.reason,
    message: e.message,
    status: e.status,
    decision: e.decision,
    decidedBy: e.decidedBy,
    /**
     * The escalation's clock (lib/contracts/escalation-timeout.ts escalationClock, by the database
     * clock): `dueAt` when the answer was due, `overdue`, `phase` (reminding / reminders_over /
     * decided), `nextReminderAt`, `remindersSent`, and `timeout`, for an open one what happens when
     * its wait times out (server/domain/escalation-wait.ts); null otherwise.
     */
    ...clockOf(e, launched.spec, now),
    /** The role it waits on now (moves along the profile's chain when overdue). */
    assigneeRole: e.assigneeRole,
    createdAt: e.createdAt,
    /** When a human decided it (the end of the wait for a human), and when the decision was applied; null before. */
    decidedAt: e.decidedAt,
    appliedAt: e.appliedAt,
    runId: e.runId,
  };
}

/** What the task left behind: artifacts (metadata), outbox messages and current facts, oldest first. */
function taskRecords(task: TaskWithRows) {
  return {
    artifacts: task.artifacts,
    outbox: task.outbox.map((m) => ({
      id: m.id,
      messageId: m.messageId,
      to: m.to,
      subject: m.subject,
      body: m.body,
      createdAt: m.createdAt,
      stepId: m.stepId,
    })),
    facts: task.facts.map((f) => ({ key: f.key, value: f.value, sourceStepId: f.sourceStepId, runId: f.runId, createdAt: f.createdAt })),
  };
}

/** The `usage` block: the steps' counts and tokens ({@link stepTotals}), the spend ({@link taskSpend}) and the billed tokens ({@link taskBilledTokens}). */
function usageOf(
  steps: Awaited<ReturnType<typeof stepTotals>>,
  spend: Awaited<ReturnType<typeof taskSpend>>,
  tokens: Awaited<ReturnType<typeof taskBilledTokens>>,
) {
  return {
    /** The budget's steps: model + tool steps of all runs (lib/contracts/step-count.ts), as task.list's `stepsUsed` and /costs. */
    steps: steps.counts.budget,
    /** Checkpoint steps of all runs, counted apart from the budget. */
    checkpointSteps: steps.counts.checkpoints,
    /** Human (escalation decision) steps of all runs, counted apart from the budget. */
    humanSteps: steps.counts.human,
    /** The step of any kind that ended (or, still running, started) last, and when — read with the counts, so the header's "last step" never lags them. */
    lastStep: steps.lastStep,
    promptTokens: Number(steps.prompt ?? 0),
    cachedTokens: Number(steps.cached ?? 0),
    completionTokens: Number(steps.completion ?? 0),
    /** USD of every model call; = productiveUsd + checkpointUsd (overhead) + wastedUsd, read together (taskSpend). */
    costUsd: spend.usd,
    productiveUsd: spend.productiveUsd,
    wastedUsd: spend.wastedUsd,
    /** The waste by what happened (labelled with lib/contracts/waste.ts wasteWords). */
    waste: spend.waste,
    checkpointUsd: spend.checkpointUsd,
    modelCalls: spend.calls,
    /** Prompt + completion tokens of every model call (the per-task CSV's billed tokens); the steps' tokens above count only the run's steps (lib/contracts/token-split.ts). */
    billedTokens: tokens.billed,
    /** Billed tokens of calls that are no step of the run, by cause (retry, replay, checkpoint, compaction, discarded, restart). */
    tokensByCause: tokens.byCause,
  };
}

/**
 * Where a task came from, when anywhere but the launch form or the CLI directly: the launch template
 * it was launched from (`archived` when the template was archived since), and the eval run cell it is
 * (the eval run, its suite, the case's key, the profile and the 0-based repeat). Both null for a
 * task launched directly (the task page says where a task came from).
 */
export interface TaskOrigin {
  template: { id: string; name: string; archived: boolean } | null;
  evalCell: { cellId: string; evalRunId: string; suite: string; caseKey: string; profile: string; repeat: number } | null;
}

/** The task's {@link TaskOrigin}: two indexed lookups (the template by id, the eval cell by its unique taskId). */
async function taskOrigin({ prisma, taskId, templateId }: { prisma: PrismaClient; taskId: string; templateId: string | null }): Promise<TaskOrigin> {
  const [template, cell] = await Promise.all([
    templateId ? prisma.launchTemplate.findUnique({ where: { id: templateId }, select: { id: true, name: true, archivedAt: true } }) : null,
    prisma.evalCell.findUnique({
      where: { taskId },
      select: {
        id: true,
        evalRunId: true,
        profile: true,
        repeat: true,
        case: { select: { key: true } },
        evalRun: { select: { suite: { select: { name: true } } } },
      },
    }),
  ]);
  return {
    template: template ? { id: template.id, name: template.name, archived: template.archivedAt !== null } : null,
    evalCell: cell
      ? { cellId: cell.id, evalRunId: cell.evalRunId, suite: cell.evalRun.suite.name, caseKey: cell.case.key, profile: cell.profile, repeat: cell.repeat }
      : null,
  };
}

/**
 * A task's billed tokens (prompt + completion of every model call: the task_cost row, as the per-task
 * CSV counts them) and those of the calls that are no step of its runs, by cause (model_call.cause
 * other than productive: retries, replays, checkpoint summaries, compaction, discarded work,
 * restarts) — what tells the run's steps' tokens from the billed ones.
 */
async function taskBilledTokens({ prisma, taskId }: { prisma: PrismaClient; taskId: string }) {
  const [[total], causes] = await Promise.all([
    prisma.$queryRaw<{ billed: bigint | null }[]>`SELECT ("promptTokens" + "completionTokens") AS billed FROM task_cost WHERE "taskId" = ${taskId}`,
    prisma.$queryRaw<{ cause: string; tokens: bigint | null }[]>`
      SELECT m.cause, sum(m."promptTokens" + m."completionTokens") AS tokens
      FROM model_call m JOIN run r ON r.id = m."runId"
      WHERE r."taskId" = ${taskId} AND m.cause <> 'productive' GROUP BY m.cause`,
  ]);
  const byCause: Partial<Record<NonProductiveCause, number>> = {};
  for (const c of causes) if (c.cause in TOKEN_CAUSE_WORDS && Number(c.tokens ?? 0) > 0) byCause[c.cause as NonProductiveCause] = Number(c.tokens);
  return { billed: Number(total?.billed ?? 0), byCause };
}

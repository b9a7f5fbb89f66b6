/**
 * Output schemas of the task procedures (`task.*` beyond `executorView` and `estimateLaunch`, which
 * server/api/output-schemas.ts holds). Strict objects, each typed against the query's own result type,
 * so a field added to a query and not here fails to compile or fails the call (INTERNAL_SERVER_ERROR,
 * "Output validation failed") in the tests that call it.
 *
 * Kept cheap on the big answers: `task.steps` ships a task's step rows as one JSON string
 * (`rowsJson`, lib/contracts/step-rows.ts) so a 50,000-step task is not walked value by value on
 * either side, and its schema checks that string as a string. Stored JSON (step arguments and
 * output, facts, checkpoint state) is checked only as JSON: it is the run's data, free-form.
 */
import { z } from "zod";
import { alertDetailSchema } from "../domain/alert-detail.ts";
import { PROFILE_PROVIDERS } from "../../lib/contracts/profile.ts";
import type { getResumePreview, diffCheckpoints, getCheckpointOrThrow, listCheckpoints } from "../db/checkpoint-queries.ts";
import type { getBatchOrThrow } from "../db/batch-ports.ts";
import {
  TASK_OUTCOMES,
  type getModelPromptOrThrow,
  type getStepOrThrow,
  type getTaskDetailOrThrow,
  type listSteps,
  type listTasks,
} from "../db/task-queries.ts";
import { BATCH_ACTIONS, type BatchPreview } from "../domain/batch-tasks.ts";
import type { CancelTaskResult } from "../domain/cancel-task.ts";
import type { ForkTaskResult } from "../domain/fork-task.ts";
import { toolClassSchema } from "../features/mcp/index.ts";
import type { resumeTask } from "../domain/resume-task.ts";
import type { redactStepForBrowser } from "../tools/egress-redact.ts";
import { count, factChangeShape, json, launchResultOutput, timeoutPlanOutput, usd, wasteSplitOutput } from "./output-schemas-shared.ts";

type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

const int = z.number().int();

const listRow = z.strictObject({
  id: z.string(),
  goal: z.string(),
  status: z.string(),
  outcome: z.enum(TASK_OUTCOMES).nullable(),
  alerts: count,
  profileName: z.string(),
  model: z.string(),
  createdBy: z.string(),
  stepBudget: int,
  stepsUsed: count,
  checkpointSteps: count,
  humanSteps: count,
  tokens: count,
  costUsd: usd,
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  lastActivityAt: z.date().nullable(),
  runs: z.array(z.strictObject({ startedAt: z.date(), endedAt: z.date().nullable() })),
  escalations: z.array(z.strictObject({ status: z.string(), createdAt: z.date(), decidedAt: z.date().nullable(), appliedAt: z.date().nullable() })),
  evalRun: z.strictObject({ id: z.string(), suite: z.string() }).nullable(),
});

/** `task.list`: one page of rows (at most 200), the next page's cursor, the filter's total. */
export const taskListOutput: z.ZodType<Result<typeof listTasks>> = z.strictObject({ rows: z.array(listRow), nextCursor: z.string().nullable(), total: count });

const tokensByCause = z.strictObject({
  checkpoint: count.optional(),
  compaction: count.optional(),
  retry: count.optional(),
  replay: count.optional(),
  discarded: count.optional(),
  restart: count.optional(),
});

/** `task.get`: the task page's header, runs, alerts, escalations, artifacts, outbox, facts and usage. */
export const taskDetailOutput: z.ZodType<Result<typeof getTaskDetailOrThrow>> = z.strictObject({
  id: z.string(),
  goal: z.string(),
  status: z.string(),
  createdBy: z.string(),
  profile: z.strictObject({
    name: z.string(),
    model: z.string(),
    baseUrl: z.string().nullable(),
    provider: z.enum(PROFILE_PROVIDERS),
    version: int,
    currentVersion: int,
  }),
  stepBudget: int,
  tokenBudget: int.nullable(),
  costBudgetUsd: usd.nullable(),
  requireApproval: z.boolean(),
  workspace: z.string(),
  input: json,
  result: json,
  outcome: z.string().nullable(),
  deadEndReason: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.date(),
  startedAt: z.date().nullable(),
  endedAt: z.date().nullable(),
  origin: z.strictObject({
    template: z.strictObject({ id: z.string(), name: z.string(), archived: z.boolean() }).nullable(),
    evalCell: z
      .strictObject({ cellId: z.string(), evalRunId: z.string(), suite: z.string(), caseKey: z.string(), profile: z.string(), repeat: int })
      .nullable(),
  }),
  forkedFrom: z.strictObject({ taskId: z.string(), checkpointId: z.string().nullable(), checkpointSeq: int.nullable() }).nullable(),
  forks: z.array(
    z.strictObject({
      taskId: z.string(),
      status: z.string(),
      checkpointId: z.string().nullable(),
      checkpointSeq: int.nullable(),
      createdAt: z.date(),
      createdBy: z.string(),
    }),
  ),
  runs: z.array(
    z.strictObject({
      id: z.string(),
      cause: z.string(),
      status: z.string(),
      endReason: z.string().nullable(),
      error: z.string().nullable(),
      startedAt: z.date(),
      endedAt: z.date().nullable(),
      segments: count,
      fromCheckpointId: z.string().nullable(),
      guidance: z.string().nullable(),
      checkpointRequested: z.boolean(),
    }),
  ),
  smoke: z
    .strictObject({
      model: z.literal("scripted-smoke"),
      profileModel: z.string(),
      includeSideEffects: z.boolean(),
      tools: z.array(
        z.strictObject({
          name: z.string(),
          server: z.string(),
          tool: z.string(),
          class: toolClassSchema,
          outcome: z.enum(["called", "error", "refused", "skipped", "not_called"]),
          latencyMs: z.number().nonnegative().nullable(),
          detail: z.string().nullable(),
          runId: z.string().nullable(),
          stepId: z.string().nullable(),
        }),
      ),
    })
    .nullable(),
  checkpointCount: count,
  hasGoodCheckpoint: z.boolean(),
  alerts: z.array(
    z.strictObject({
      id: z.string(),
      kind: z.string(),
      severity: z.string(),
      stepId: z.string(),
      runId: z.string(),
      message: z.string(),
      createdAt: z.date(),
      detail: alertDetailSchema.nullable(),
      onTimeline: z.boolean(),
    }),
  ),
  escalations: z.array(
    z.strictObject({
      id: z.string(),
      runId: z.string(),
      reason: z.string(),
      message: z.string(),
      status: z.string(),
      decision: z.string().nullable(),
      decidedBy: z.string().nullable(),
      assigneeRole: z.string(),
      createdAt: z.date(),
      decidedAt: z.date().nullable(),
      appliedAt: z.date().nullable(),
      dueAt: z.date(),
      overdue: z.boolean(),
      phase: z.enum(["reminding", "reminders_over", "decided"]),
      nextReminderAt: z.date().nullable(),
      remindersSent: count,
      timeout: timeoutPlanOutput.nullable(),
    }),
  ),
  artifacts: z.array(
    z.strictObject({ id: z.string(), runId: z.string(), stepId: z.string(), name: z.string(), mime: z.string(), bytes: count, createdAt: z.date() }),
  ),
  outbox: z.array(
    z.strictObject({
      id: z.string(),
      messageId: z.string(),
      to: z.string(),
      subject: z.string(),
      body: z.string(),
      createdAt: z.date(),
      stepId: z.string(),
    }),
  ),
  facts: z.array(z.strictObject({ key: z.string(), value: json, sourceStepId: z.string(), runId: z.string(), createdAt: z.date() })),
  usage: z.strictObject({
    steps: count,
    checkpointSteps: count,
    humanSteps: count,
    lastStep: z.strictObject({ runId: z.string(), stepId: z.string(), at: z.date() }).nullable(),
    promptTokens: count,
    cachedTokens: count,
    completionTokens: count,
    costUsd: usd,
    productiveUsd: usd,
    wastedUsd: usd,
    waste: wasteSplitOutput,
    checkpointUsd: usd,
    modelCalls: count,
    billedTokens: count,
    tokensByCause,
  }),
});

/** `task.profiles`: the profile names tasks were launched with. */
export const profileNamesOutput = z.array(z.string());

/** Where a partial step list starts (lib/contracts/step-rows.ts StepWindow). */
const stepWindowShape = {
  before: count,
  firstSegment: z.strictObject({ n: z.number().int().positive(), fromReason: z.string().nullable(), partial: z.boolean() }),
};

/**
 * `task.steps`: the runs' ids, the step rows as ONE JSON string (lib/contracts/step-rows.ts encodes
 * and decodes it), whether the list was cut at `limit`, and where it starts. The string is checked as
 * a string: walking up to 20,000 rows again here would cost the page what the encoding saves.
 */
export const taskStepsOutput: z.ZodType<Result<typeof listSteps>> = z.strictObject({
  runIds: z.array(z.string()),
  rowsJson: z.string(),
  truncated: z.boolean(),
  ...stepWindowShape,
});

/** `task.searchSteps`: `<runId>:<stepId>` keys of the steps that match. */
export const searchStepsOutput = z.array(z.string());

/** `task.step`: one step in full with its model calls; secrets cut (`redactedSecrets` counts them). */
export const taskStepOutput: z.ZodType<Result<typeof redactStepForBrowser<Result<typeof getStepOrThrow>>>> = z.strictObject({
  id: z.string(),
  runId: z.string(),
  stepId: z.string(),
  index: int,
  kind: z.string(),
  status: z.string(),
  tool: z.string().nullable(),
  summary: z.string(),
  arguments: json,
  output: json,
  error: z.string().nullable(),
  progress: json,
  startedAt: z.date(),
  endedAt: z.date().nullable(),
  durationMs: z.number().nonnegative().nullable(),
  attempts: count,
  promptTokens: count,
  cachedTokens: count,
  completionTokens: count,
  cacheWriteTokens: count.nullable(),
  reasoningTokens: count.nullable(),
  effortLevel: z.string().nullable(),
  effortModel: z.string().nullable(),
  effortRule: z.string().nullable(),
  modelCalls: z.array(
    z.strictObject({
      id: z.string(),
      runId: z.string(),
      stepId: z.string(),
      model: z.string(),
      status: z.string(),
      error: z.string().nullable(),
      cause: z.string(),
      createdAt: z.date(),
      attempt: int,
      promptTokens: count,
      cachedTokens: count,
      completionTokens: count,
      cacheWriteTokens: count.nullable(),
      reasoningTokens: count,
      estimated: z.boolean(),
      billed: z.boolean(),
      httpStatus: int.nullable(),
      latencyMs: z.number().nonnegative(),
      costUsd: usd,
      priceVersion: z.string(),
    }),
  ),
  redactedSecrets: count,
});

const wireToolCall = z.strictObject({ id: z.string(), type: z.literal("function"), function: z.strictObject({ name: z.string(), arguments: z.string() }) });
const reasoningItem = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("openai_reasoning"), id: z.string(), encryptedContent: z.string().nullable(), summary: z.array(z.string()) }),
  z.strictObject({ type: z.literal("anthropic_thinking"), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal("anthropic_redacted_thinking"), data: z.string() }),
]);
/** A transcript message (server/llm/types.ts ChatMessage: Chat Completions' shape). */
const chatMessage = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("system"), content: z.string() }),
  z.strictObject({ role: z.literal("user"), content: z.string(), cacheBreaks: z.array(count).optional() }),
  z.strictObject({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(wireToolCall).optional(),
    reasoning: z.array(reasoningItem).optional(),
  }),
  z.strictObject({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() }),
]);

/** `task.stepPrompt`: the messages a model step was sent, rebuilt, secrets redacted. */
export const stepPromptOutput: z.ZodType<Result<typeof getModelPromptOrThrow>> = z.strictObject({
  messages: z.array(chatMessage),
  contextMessages: count,
  fromCheckpoint: z.strictObject({ id: z.string(), seq: int, reason: z.string() }).nullable(),
  rebuilt: z.literal(true),
});

/** `task.launch` (and `profile.smoke`): the task, its first run, and whether the launch key was seen before. */
export const launchOutput = launchResultOutput;

/** `task.resume`: the new run, from which checkpoint (null: from the beginning). */
export const resumeOutput: z.ZodType<Result<typeof resumeTask>> = z.strictObject({ runId: z.string(), checkpointId: z.string().nullable() });

/** `task.fork`: the branch, its first run, its copy of the checkpoint, and which later side effects it reuses or redoes. */
export const forkOutput: z.ZodType<ForkTaskResult> = z.strictObject({
  taskId: z.string(),
  runId: z.string(),
  checkpointId: z.string(),
  forkedFrom: z.strictObject({ taskId: z.string(), checkpointId: z.string() }),
  effects: z.strictObject({ reused: z.array(z.string()), redone: z.array(z.string()) }),
});

/** `task.resumePreview`: what a resume or fork from a checkpoint keeps and redoes. */
export const resumePreviewOutput: z.ZodType<Result<typeof getResumePreview>> = z.strictObject({
  checkpoint: z.strictObject({ id: z.string(), seq: int, afterStepId: z.string(), createdAt: z.date() }).nullable(),
  isLatest: z.boolean(),
  keptFacts: count,
  carriedFacts: count,
  redoFacts: count,
  redoFactKeys: z.array(z.string()),
  stepsAfter: count,
  effectsAfter: z.array(
    z.strictObject({ idempotencyKey: z.string(), tool: z.string(), stepId: z.string(), summary: z.string(), committedAt: z.date().nullable() }),
  ),
});

/** `task.checkpoints`: each checkpoint's header, the facts it holds and the budgets used by then. */
export const checkpointsOutput: z.ZodType<Result<typeof listCheckpoints>> = z.array(
  z.strictObject({
    id: z.string(),
    runId: z.string(),
    seq: int,
    reason: z.string(),
    good: z.boolean(),
    afterStepId: z.string(),
    openQuestion: z.string().nullable(),
    phase: z.string().nullable(),
    summary: z.string(),
    contextTokens: count,
    transcriptTokens: count,
    createdAt: z.date(),
    facts: count,
    budgetsUsed: z.strictObject({ steps: z.number().nonnegative(), tokens: z.number().nonnegative(), costUsd: usd }),
  }),
);

/** `task.checkpoint`: one checkpoint whole; its state (working set, completed steps, side effects, budgets) as stored JSON. */
export const checkpointOutput: z.ZodType<Result<typeof getCheckpointOrThrow>> = z.strictObject({
  id: z.string(),
  taskId: z.string(),
  runId: z.string(),
  goal: z.string(),
  seq: int,
  reason: z.string(),
  good: z.boolean(),
  afterStepId: z.string(),
  nextTurn: int,
  nextIndex: int,
  workingSet: json,
  completedSteps: json,
  sideEffects: json,
  budgetsUsed: json,
  openQuestion: z.string().nullable(),
  phase: z.string().nullable(),
  summary: z.string(),
  contextTokens: count,
  transcriptTokens: count,
  createdAt: z.date(),
});

/** `task.diff`: the working-set changes between two checkpoints, each with the step and run that made it. */
export const checkpointDiffOutput: z.ZodType<Result<typeof diffCheckpoints>> = z.array(
  z.strictObject({ ...factChangeShape, sourceStepId: z.string().nullable(), runId: z.string().nullable() }),
);

const batchPreviewShape = {
  action: z.enum(BATCH_ACTIONS),
  matched: count,
  taskIds: z.array(z.string()),
  skipped: z.array(z.strictObject({ reason: z.string(), count: count })),
  estimatedUsd: usd,
  unestimated: count,
  concurrency: z.number().int().positive(),
};
/** `task.batchPreview`: what a batch would do, writing nothing. */
export const batchPreviewOutput: z.ZodType<BatchPreview> = z.strictObject(batchPreviewShape);
/** `task.batchStart`: the same, with the started batch's id. */
export const batchStartOutput: z.ZodType<BatchPreview & { batchId: string }> = z.strictObject({ ...batchPreviewShape, batchId: z.string() });

/** `task.batch`: a batch's progress, items counted by status. */
export const batchProgressOutput: z.ZodType<Result<typeof getBatchOrThrow>> = z.strictObject({
  id: z.string(),
  action: z.enum(BATCH_ACTIONS),
  actor: z.string(),
  createdAt: z.date(),
  total: count,
  counts: z.strictObject({ pending: count, running: count, done: count, skipped: count, failed: count }),
  finished: z.boolean(),
  items: z.array(z.strictObject({ taskId: z.string(), status: z.string(), message: z.string().nullable(), runId: z.string().nullable() })),
});

/** `task.cancel`: the runs this call cancelled; `note` when the task was cancelled already. */
export const cancelOutput: z.ZodType<CancelTaskResult> = z.strictObject({
  taskId: z.string(),
  status: z.literal("cancelled"),
  cancelledRuns: z.array(z.string()),
  alreadyCancelled: z.boolean(),
  note: z.string().optional(),
});

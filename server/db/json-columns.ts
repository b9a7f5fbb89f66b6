import type { SuperJSONResult } from "superjson";
import { z } from "zod";
import type { CompletedStepSummary, WorkingSet } from "../domain/agent-context.ts";
import type { CompactionSizes } from "../domain/agent-loop/index.ts";
import type { BudgetIncrease } from "../domain/apply-escalation-decision.ts";
import type { BatchSelection } from "../domain/batch-tasks.ts";
import { parseBudgetBasis, type BudgetBasis } from "../domain/budget-from-history.ts";
import type { EvalCheckResult } from "../domain/eval-checks.ts";
import { evalCaseLaunchSchema, evalCheckSchema, type EvalCaseLaunch, type EvalCheck } from "../domain/eval-suite.ts";
import { discoveredToolSchema, parseToolSnapshot, type DiscoveredTool, type McpToolSnapshot } from "../domain/mcp-tool-snapshot.ts";
import { parseSmokeSpec, type SmokeSpec } from "../domain/profile-smoke.ts";
import { effortPolicySchema, profileSpecShape, type ProfileSpec } from "../domain/profile-spec.ts";
import type { Prisma } from "./client.ts";
import { anyJson, jsonColumnCodec, jsonObject } from "./json-codec.ts";

export { JsonColumnError, jsonColumnCodec, type JsonCodec } from "./json-codec.ts";

// One codec per JSON column of Longhaul's own tables (the executor's are in
// server/executor/json-columns.ts). Every write of a column goes through its `encode`
// (`encodeNullable` for a nullable one), every typed read through its `decode` with the row's id.

/** What Task.input holds: the launch's structured input ({demo?, limit?, facts?}); `{}` when empty. */
export type TaskInput = Record<string, unknown> & { facts?: WorkingSet };

/**
 * Task.input: the launch's structured input, an object whose `facts` (the working set a run
 * starts with) is an object when present. A task launched without facts reads with `facts`
 * absent (readers take it as `{}`); keys this build does not know are kept as stored.
 */
export const taskInputJson = jsonColumnCodec<Record<string, unknown>, TaskInput>("Task.input", z.looseObject({ facts: jsonObject.optional() }));

/** Task.mcpTools: the MCP tools discovered at launch; null when absent or unreadable (a run then offers none). */
export const taskMcpToolsJson = jsonColumnCodec<McpToolSnapshot, McpToolSnapshot | null>("Task.mcpTools", parseToolSnapshot);

/** Task.budgetBasis: the history the budgets came from; null when absent or not of the recorded shape. */
export const taskBudgetBasisJson = jsonColumnCodec<BudgetBasis, BudgetBasis | null>("Task.budgetBasis", parseBudgetBasis);

/** Task.smoke: a profile smoke test's plan; null for an ordinary task. */
export const taskSmokeJson = jsonColumnCodec<SmokeSpec, SmokeSpec | null>("Task.smoke", parseSmokeSpec);

/** EvalCase.launch: the case's launch as the suite file gave it. */
export const evalCaseLaunchJson = jsonColumnCodec<EvalCaseLaunch>("EvalCase.launch", evalCaseLaunchSchema);

/** EvalCase.checks: the case's checks, in the file's order. */
export const evalCaseChecksJson = jsonColumnCodec<EvalCheck[]>("EvalCase.checks", z.array(evalCheckSchema));

/** One check's result as an eval cell stores it (EvalCell.checkResults; `eval.report` answers it too). */
export const evalCheckResultSchema: z.ZodType<EvalCheckResult> = z.object({
  kind: z.custom<EvalCheck["kind"]>((v) => typeof v === "string", "kind: a check kind"),
  label: z.string(),
  pass: z.boolean(),
  detail: z.string(),
  costUsd: z.number().optional(),
  unavailable: z.boolean().optional(),
});

/** EvalCell.checkResults: per check, what it saw and whether it passed. */
export const evalCellCheckResultsJson = jsonColumnCodec<EvalCheckResult[]>("EvalCell.checkResults", z.array(evalCheckResultSchema));

/** Alert.evidence: what the detector saw, as an object. */
export const alertEvidenceJson = jsonColumnCodec<Record<string, unknown>>("Alert.evidence", jsonObject);

/** Escalation.evidence: what the loop saw when it escalated, as an object. */
export const escalationEvidenceJson = jsonColumnCodec<Record<string, unknown>>("Escalation.evidence", jsonObject);

/** IdempotentRequest.result: the action's result, superjson-serialized (`{json, meta?}`). */
export const requestResultJson = jsonColumnCodec<SuperJSONResult>(
  "IdempotentRequest.result",
  z.custom<SuperJSONResult>((v) => typeof v === "object" && v !== null && "json" in v, "result: not a superjson result ({json, meta?})"),
);

/** Task.result: what the run's `finish` returned (the answer, its gaps), any JSON. */
export const taskResultJson = jsonColumnCodec<unknown, Prisma.JsonValue>("Task.result", anyJson);

/** Step.arguments: the step's arguments as the model gave them (parsed), any JSON. */
export const stepArgumentsJson = jsonColumnCodec<unknown, Prisma.JsonValue>("Step.arguments", anyJson);

/** The arguments of the human step that records an undone decision (kind `human`, step id `undo-<escalation step>-<applyAfter ms>`). */
export interface UndoStepArguments {
  /** The decision taken back (`approve`, `retry_with_guidance`, …). */
  undone: string;
  decidedBy: string | null;
  decidedAt: string | null;
  guidance: string | null;
  applyAfter: string | null;
}

/**
 * Step.arguments of an undo step. A field an older writer did not record reads as empty (the
 * decision `""`, the others null) rather than refusing the escalation card that lists the undo.
 */
export const undoStepArgumentsJson = jsonColumnCodec<UndoStepArguments>(
  "Step.arguments",
  z.looseObject({
    undone: z.string().default(""),
    decidedBy: z.string().nullable().default(null),
    decidedAt: z.string().nullable().default(null),
    guidance: z.string().nullable().default(null),
    applyAfter: z.string().nullable().default(null),
  }),
);

/** Step.output of an undo step: who took the decision back and when (ISO 8601); absent fields read as `""` / null. */
export const undoStepOutputJson = jsonColumnCodec<{ undoneBy: string; undoneAt: string | null }>(
  "Step.output",
  z.looseObject({ undoneBy: z.string().default(""), undoneAt: z.string().nullable().default(null) }),
);

/** Step.output: what the step produced (a tool's output, a model turn's summary, a compaction's sizes), any JSON. */
export const stepOutputJson = jsonColumnCodec<unknown, Prisma.JsonValue>("Step.output", anyJson);

/** One tool call of a model turn as its step stores it: the call's id, the tool's name, the arguments as the model's JSON text. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Step.output of a model step (server/agent/model-step.ts): the turn's text and its tool calls (fields
 * other than these — finish reason, effort — are kept as stored). A failed turn stores no output:
 * its readers pass `{}`, which reads as no text and no calls, and so does a field an older writer left out.
 */
export const modelStepOutputJson = jsonColumnCodec<
  { content?: string | null; toolCalls?: StoredToolCall[] },
  { content: string | null; toolCalls: StoredToolCall[] }
>(
  "Step.output",
  z.looseObject({
    content: z
      .string()
      .nullish()
      .transform((c) => c ?? null),
    toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), arguments: z.string() })).default([]),
  }),
);

/**
 * Step.output of a failed tool step (server/agent/tool-step.ts): `{error}`, the tool's error as the
 * agent was told it (any JSON). A step failed without an output reads from `{}`, `error` absent.
 */
export const failedToolStepOutputJson = jsonColumnCodec<{ error?: unknown }>("Step.output", z.looseObject({ error: z.unknown() }));

/**
 * The sizes a `compact-<n>` step reports in its output (server/agent/checkpoint-step.ts
 * runCompactStep), each optional: a field an older step did not record reads as absent, and its
 * readers decide what that means; a field of another type is refused.
 */
const compactionSizesSchema: z.ZodType<Partial<CompactionSizes>> = z.looseObject({
  contextWindow: z.number().optional(),
  beforeTokens: z.number().optional(),
  afterTokens: z.number().optional(),
  limitTokens: z.number().optional(),
  referencedFacts: z.number().optional(),
  providerLimitTokens: z.number().nullish(),
  refusal: z.string().nullish(),
});

/**
 * Step.output of a `compact-<n>` step: `{checkpointId, sizes, referenced}` (only `sizes` is read
 * here; the rest is kept as stored). A step that stored no output reads as null.
 */
export const compactStepOutputJson = jsonColumnCodec<{ sizes?: Partial<CompactionSizes> } | null>(
  "Step.output",
  z.looseObject({ sizes: compactionSizesSchema.optional() }).nullable(),
);

/** Fact.value: the value `record_fact` was given, any JSON (JSON null included). */
export const factValueJson = jsonColumnCodec<unknown, Prisma.JsonValue>("Fact.value", anyJson);

/** SideEffect.arguments: the effect's arguments (what its fingerprint is taken over), any JSON. */
export const sideEffectArgumentsJson = jsonColumnCodec<unknown, Prisma.JsonValue>("SideEffect.arguments", anyJson);

/** SideEffect.result: the effect's recorded result, a JSON object (SQL NULL while only its intent is recorded). */
export const sideEffectResultJson = jsonColumnCodec<Record<string, unknown>>("SideEffect.result", jsonObject);

/** AuditEvent.details: the action's input, redacted and bounded by the writer, any JSON. */
export const auditDetailsJson = jsonColumnCodec<unknown, Prisma.JsonValue>("AuditEvent.details", anyJson);

/** Checkpoint.workingSet: the facts the run carries, key → value. */
export const checkpointWorkingSetJson = jsonColumnCodec<WorkingSet>("Checkpoint.workingSet", jsonObject);

/** One completed step a checkpoint carries (fields other than these are kept as stored). */
const completedStepSchema: z.ZodType<CompletedStepSummary> = z.looseObject({
  stepId: z.string(),
  // A checkpoint written by an older build may carry `tool: null` for a step without a tool: read as absent.
  tool: z
    .string()
    .nullish()
    .transform((t) => t ?? undefined),
  summary: z.string(),
});

/** Checkpoint.completedSteps: the compact list of what was done, oldest first. */
export const checkpointCompletedStepsJson = jsonColumnCodec<CompletedStepSummary[]>("Checkpoint.completedSteps", z.array(completedStepSchema));

/** What a run had used when a checkpoint was taken (Checkpoint.budgetsUsed): steps, tokens, US dollars. */
export interface BudgetsUsed {
  steps: number;
  tokens: number;
  costUsd: number;
}

/** Checkpoint.budgetsUsed. */
export const checkpointBudgetsUsedJson = jsonColumnCodec<BudgetsUsed>(
  "Checkpoint.budgetsUsed",
  // A figure a checkpoint of an older build did not record reads as 0 used, rather than refusing the
  // resume or fork that reads it.
  z.looseObject({ steps: z.number().default(0), tokens: z.number().default(0), costUsd: z.number().default(0) }),
);

/** A committed side effect as a checkpoint carries it (Checkpoint.sideEffects). */
export interface CheckpointEffect {
  tool: string;
  stepId: string;
  idempotencyKey: string;
  result: unknown;
}

/** Checkpoint.sideEffects: the task's committed effects when the checkpoint was taken. */
export const checkpointSideEffectsJson = jsonColumnCodec<CheckpointEffect[]>(
  "Checkpoint.sideEffects",
  z.array(z.looseObject({ tool: z.string(), stepId: z.string(), idempotencyKey: z.string(), result: z.unknown() })),
);

/** Escalation.budgetIncrease: a decision's budget raise (steps, tokens, US dollars); SQL NULL for none. */
export const escalationBudgetIncreaseJson = jsonColumnCodec<BudgetIncrease>(
  "Escalation.budgetIncrease",
  // Loose: a key this build does not know is kept as stored, not silently dropped on the way through.
  z.looseObject({ steps: z.number().optional(), tokens: z.number().optional(), usd: z.number().optional() }),
);

/** Escalation.factEdits: the facts a handler edited with the decision, key → new value; SQL NULL for none. */
export const escalationFactEditsJson = jsonColumnCodec<Record<string, unknown>>("Escalation.factEdits", jsonObject);

/** BatchOperation.selection: the tasks chosen by id, or the list filter that chose them. */
export const batchSelectionJson = jsonColumnCodec<BatchSelection, Prisma.JsonValue>("BatchOperation.selection", anyJson);

// LaunchTemplate.launch's codec is in template-repository.ts: it parses with the launch use case's
// schema (domain/launch-template.ts), which only that repository may import.

/** AgentProfile.headers: extra request headers, name → value (secrets only as `${VAR}` references). */
export const profileHeadersJson = jsonColumnCodec<ProfileSpec["headers"]>("AgentProfile.headers", profileSpecShape.headers);

/** AgentProfile.mcpServers: the MCP servers the profile's runs are offered ({server, tools?}: all its tools or the named ones). */
export const profileMcpServersJson = jsonColumnCodec<ProfileSpec["mcpServers"]>("AgentProfile.mcpServers", profileSpecShape.mcpServers);

/** AgentProfile.effort: the profile's effort policy; SQL NULL when it has none. */
export const profileEffortJson = jsonColumnCodec<NonNullable<ProfileSpec["effort"]>>("AgentProfile.effort", effortPolicySchema);

/** McpServer.serverInfo: the name and version the server gave in its `initialize` result (MCP `serverInfo`). */
export const mcpServerServerInfoJson = jsonColumnCodec<{ name: string; version: string }>(
  "McpServer.serverInfo",
  z.looseObject({ name: z.string(), version: z.string() }),
);

/** McpServer.discoveredTools: the tools the server listed when it last started. */
export const mcpServerDiscoveredToolsJson = jsonColumnCodec<DiscoveredTool[]>("McpServer.discoveredTools", z.array(discoveredToolSchema));

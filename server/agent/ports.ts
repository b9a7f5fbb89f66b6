import type { CompletedStepSummary, WorkingSet } from "../domain/agent-context.ts";
import type { CheckpointReason } from "../domain/checkpoint.ts";
import type { AlertSeverity } from "../domain/detectors.ts";
import type { CostCause } from "../domain/cost-causes.ts";
import type { ChatCompletionRequest, ChatCompletionResult, ProfileEndpoint } from "../llm/provider.ts";
import type { ExtraTools, ToolCallResult } from "../tools/registry.ts";
import type { EffortChoice } from "../../lib/contracts/effort.ts";
import type { ModelCallStatus } from "../../lib/contracts/status.ts";

/**
 * The small ports the agent's step bodies (model-step, tool-step, checkpoint-step, auto-resume)
 * work over. The Prisma-backed implementation is `prismaAgentPorts` (server/inngest/agent-ports.ts, the composition root); unit tests
 * pass fakes (tests/unit/agent-steps.test.ts). Every method is one row write or read, so a step's
 * behaviour is what its body does with them.
 */

/** One recorded model call: the one type of the ledger's write (db/cost-repository.ts `recordModelCall` takes it plus the client). */
export interface ModelCallRecord {
  runId: string;
  stepId: string;
  attempt: number;
  model: string;
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
  /** Part of promptTokens written to the provider's prompt cache (Anthropic), when reported. */
  cacheWriteTokens?: number;
  /** Reasoning tokens, when the provider reports them. */
  reasoningTokens?: number;
  /** The provider reported no usage: the tokens were counted with the tokenizer (flagged wherever shown). */
  estimated?: boolean;
  status: ModelCallStatus;
  httpStatus: number | null;
  billed: boolean;
  cause: CostCause;
  latencyMs: number;
  error?: string;
}

/** The timeline's step rows. */
export interface StepPorts {
  beginStep(input: {
    runId: string;
    stepId: string;
    index: number;
    kind: "model" | "tool" | "checkpoint";
    tool?: string;
    args?: unknown;
    /** The effort a model call of this step runs at (recorded on the row: level, model, rule). */
    effort?: EffortChoice | null;
  }): Promise<{ completedBefore: boolean }>;
  endStep(input: {
    runId: string;
    stepId: string;
    status: "completed" | "failed";
    output?: unknown;
    error?: string;
    summary?: string;
    usage?: { promptTokens: number; cachedTokens: number; completionTokens: number; cacheWriteTokens?: number; reasoningTokens?: number };
  }): Promise<void>;
  /** Notes a failed attempt on a step that will be retried (it stays running). */
  noteStepError(input: { runId: string; stepId: string; error: string }): Promise<void>;
  /**
   * Marks completed model step `stepId` discarded: its turn was thrown away and asked again (the
   * effort dial's re-ask). Its kept model calls become cause `discarded` and its summary says why.
   * Idempotent.
   */
  discardModelStep(input: { runId: string; stepId: string; reason: string }): Promise<void>;
}

/** The model provider and the cost ledger. */
export interface ModelPorts {
  /** One model call to the profile's endpoint (server/llm/provider.ts resolveProvider picks the wire format, URL, key and headers; callModel sends it). */
  chat(request: Omit<ChatCompletionRequest, "baseUrl" | "apiKey" | "headers" | "wireFormat"> & { endpoint: ProfileEndpoint }): Promise<ChatCompletionResult>;
  /** Records and prices the call (an unbilled attempt costs 0); returns its dollars. */
  recordModelCall(record: ModelCallRecord): Promise<{ usd: number }>;
  /** The task's whole model spend in USD (all runs, retries included). */
  taskSpendUsd(taskId: string): Promise<number>;
}

/** What an operator asked of the run (read after each model call). */
export interface RunRequestPorts {
  runRequests(runId: string): Promise<{ checkpointRequested: boolean; escalationRequested: { note: string | null; by: string | null } | null }>;
  clearCheckpointRequest(runId: string): Promise<void>;
}

/** The tool gateway. */
export interface ToolPorts {
  /** Settles the ledger from a human's verdict on an earlier unresolved attempt of this effect. */
  settleEffectByVerdict(input: { taskId: string; fingerprint: string }): Promise<void>;
  /** Runs the call; throws UnresolvedEffectError when an effect's outcome is unknown. */
  executeToolCall(input: {
    name: string;
    rawArguments: string;
    taskId: string;
    runId: string;
    stepId: string;
    workspace: string;
    /** The run's MCP tools (server/tools/mcp/mcp-tools.ts), beside the built-in ones. */
    extra?: ExtraTools;
  }): Promise<ToolCallResult>;
}

/** An alert on the timeline: the step that raised it, its kind and severity, and what was seen (Alert.evidence, an object). */
export interface AlertRecord {
  taskId: string;
  runId: string;
  stepId: string;
  kind: string;
  severity: AlertSeverity;
  message: string;
  evidence: Record<string, unknown>;
}

/** One structured checkpoint as the checkpoint step writes it (server/db/checkpoint-repository.ts saveCheckpoint stores it). */
export interface CheckpointData {
  taskId: string;
  runId: string;
  reason: CheckpointReason;
  afterStepId: string;
  nextTurn: number;
  nextIndex: number;
  goal: string;
  workingSet: WorkingSet;
  completedSteps: CompletedStepSummary[];
  openQuestion: string | null;
  phase: string | null;
  summary: string;
  budgetsUsed: { steps: number; tokens: number; costUsd: number };
  contextTokens: number;
  transcriptTokens: number;
}

/** The checkpoint rows. */
export interface CheckpointPorts {
  /** This run's facts (latest value per key); with `afterCheckpointId`, only those recorded after that checkpoint was taken. */
  runFacts(runId: string, afterCheckpointId?: string | null): Promise<WorkingSet>;
  saveCheckpoint(data: CheckpointData): Promise<{ id: string; seq: number }>;
  recordAlert(input: AlertRecord): Promise<void>;
}

/** Automatic resume after a transient failure. */
export interface AutoResumePorts {
  countAutoResumes(taskId: string): Promise<number>;
  resume(taskId: string): Promise<{ runId: string; checkpointId: string | null } | null>;
}

export type AgentPorts = StepPorts & ModelPorts & RunRequestPorts & ToolPorts & CheckpointPorts & AutoResumePorts;

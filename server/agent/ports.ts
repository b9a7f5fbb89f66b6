import type { CompletedStepSummary, WorkingSet } from "../domain/agent-context.ts";
import type { CheckpointReason } from "../domain/checkpoint.ts";
import type { AlertSeverity } from "../domain/detectors.ts";
import type { CostCause } from "../domain/cost-causes.ts";
import type { ChatCompletionRequest, ChatCompletionResult, ProfileEndpoint } from "../llm/provider.ts";
import type { ExtraTools, ToolCallResult, ToolDefinition } from "../tools/registry.ts";
import type { McpToolSnapshot } from "../domain/mcp-tool-snapshot.ts";
import type { LoopEgress, LoopVerdict } from "../domain/agent-loop/index.ts";
import type { DecisionView } from "../domain/escalation-wait.ts";
import type { ApplyOutcome } from "../domain/apply-escalation-decision.ts";
import type { EffortChoice } from "../../lib/contracts/effort.ts";
import type { ModelCallStatus, RunEndReason } from "../../lib/contracts/status.ts";
import type { EscalationReason } from "../../lib/contracts/escalation.ts";

/**
 * The small ports the agent's step bodies (model-step, tool-step, checkpoint-step, auto-resume,
 * run-steps) work over. The Prisma-backed implementations are `prismaAgentPorts` and `prismaRunPorts`
 * (server/inngest/agent-ports.ts, the composition root); unit tests pass fakes
 * (tests/unit/agent-steps.test.ts, tests/unit/run-steps.test.ts). Every method is one row write or read, so a step's
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

/** Why a run or task ends, as the run's end step writes it (server/db/run-repository.ts finishRun). */
/** What opens an escalation (server/db/escalation-repository.ts openEscalation). */
export interface OpenEscalationInput {
  taskId: string;
  runId: string;
  stepId: string;
  reason: EscalationReason;
  message: string;
  evidence: Record<string, unknown>;
  checkpointId: string | null;
  /** Run.endReason (null when the agent itself asked for a human). */
  endReason: RunEndReason | null;
  /** risky_action: the proposed call's ledger fingerprint (task + tool + canonical arguments). */
  fingerprint?: string | null;
}

export interface RunEnd {
  taskId: string;
  runId: string;
  runStatus: "completed" | "dead_end" | "failed" | "escalated";
  taskStatus: "completed" | "dead_end" | "failed" | "waiting_for_human";
  endReason?: RunEndReason;
  result?: unknown;
  /** Task.outcome of a completed task: `completed`, or `completed_with_gaps` when result.gaps is not empty. */
  outcome?: "completed" | "completed_with_gaps";
  deadEndReason?: string;
  error?: string;
}

/**
 * The run's own rows around the loop: the segment's start and end, the egress gate and the human
 * verdicts the loop asks for, the escalation and its decision. `Start` is what the segment starts
 * from (server/db/checkpoint-repository.ts SegmentStart in the Prisma implementation); the agent
 * layer only hands it on.
 */
export interface RunPorts<Start = unknown> {
  /** Waits (≤ 10 s) for the tool steps of a run of the task cancelled just before to leave `running`; says what is still running. */
  settleCancelledSteps(input: { taskId: string; runId: string }): Promise<{ settled: boolean; waitedMs: number; running: string[] }>;
  /** Reads where the segment starts: the run's beginning, or checkpoint `checkpointId`. */
  startSegment(input: { taskId: string; runId: string; checkpointId: string | null }): Promise<Start>;
  /** Records an alert on the run when an MCP server's tools changed since the snapshot; returns the changed servers' names. */
  checkMcpToolsChanged(input: { taskId: string; runId: string; stepId: string; snapshot: McpToolSnapshot | null }): Promise<string[]>;
  /** Counts segment `segments` on the run while it is running (compare-and-swap; `count` 0 when it is not). */
  setRunSegments(input: { runId: string; segments: number }): Promise<{ count: number }>;
  /** The egress gate's verdict on an outbound call (allow for a tool that is not `egress`). */
  gateToolCall(input: { taskId: string; tool: ToolDefinition; args: unknown }): Promise<LoopEgress>;
  /** The latest applied human verdict (approve / reject) on the risky call with this fingerprint, or null. */
  findRiskyVerdict(input: { taskId: string; fingerprint: string }): Promise<(LoopVerdict & { escalationId: string }) | null>;
  /** Opens (once per run and step id) the escalation that ends the run `escalated`. */
  openEscalation(input: OpenEscalationInput): Promise<{ escalationId: string }>;
  /** Tells the escalation's handlers (webhook, email): round 0 at opening, k ≥ 1 for the k-th overdue reminder. Returns what was sent (small JSON). */
  notifyEscalation(input: { escalationId: string; round: number }): Promise<unknown>;
  /** The escalation's decision as the wait reads it (the database clock decides `due`). */
  readDecision(escalationId: string): Promise<DecisionView>;
  /** Applies the escalation's recorded decision (the domain's applyDecision); the human step gets timeline index `stepIndex`. */
  applyEscalationDecision(input: { escalationId: string; stepIndex: number }): Promise<ApplyOutcome>;
  /** Ends the run and its task (compare-and-swap on a running run); false when it had already ended. */
  finishRun(end: RunEnd): Promise<boolean>;
  /** Ends a run whose function failed for good `failed` with `error` (compare-and-swap), and its running steps. */
  failRunAfterFunctionFailure(input: { taskId: string; runId: string; error: string }): Promise<{ ended: boolean; steps: number }>;
}

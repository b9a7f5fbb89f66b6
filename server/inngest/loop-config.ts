import type { SegmentStart } from "../db/checkpoint-repository.ts";
import type { LoopConfig } from "../domain/agent-loop/index.ts";
import { builtinTools } from "../tools/registry.ts";

/**
 * The agent loop's configuration for a segment (server/domain/agent-loop `LoopConfig`) from what
 * `startSegment` loaded: the task's budgets and their basis (Task.budgetBasis: quoted when a ceiling
 * from history is reached), the launched profile version's window and tools, its detector policy,
 * and the sizes of the compaction the start came from (a refusal of it is a refusal of compacted context).
 * Pure. Used by agent-run for every segment, and by tests that check what a run really starts with.
 */
export function loopConfigOf(start: SegmentStart): LoopConfig {
  return {
    firstTurn: start.nextTurn,
    goal: start.goal,
    stepBudget: start.stepBudget,
    tokenBudget: start.tokenBudget,
    costBudgetUsd: start.costBudgetUsd,
    contextWindow: start.profile.contextWindow,
    saturationRatio: start.policy.saturationRatio,
    expensiveStepUsd: start.policy.expensiveStepUsd,
    checkpointEverySteps: start.policy.checkpointEverySteps,
    stallSteps: start.policy.stallSteps,
    stallGraceSteps: start.policy.stallGraceSteps,
    requireApproval: start.requireApproval,
    fromReason: start.fromReason,
    repeatableTools: start.profile.tools.filter((name) => builtinTools.get(name)?.repeatable === true),
    budgetBasis: start.budgetBasis,
    compactedStart: start.compaction ?? null,
    providerLimitTokens: start.providerLimitTokens ?? null,
    effort: start.profile.effort ?? null,
    model: start.profile.model,
    afterHuman: start.afterHuman ?? false,
  };
}

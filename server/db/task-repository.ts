import { MAX_COST_BUDGET_USD, MAX_TOKEN_BUDGET } from "../../lib/contracts/limits.ts";
import type { BudgetIncrease } from "../domain/apply-escalation-decision.ts";
import { Prisma, type PrismaClient } from "./client.ts";

export type { BudgetIncrease } from "../domain/apply-escalation-decision.ts";

const MAX_COST_BUDGET_USD_TEXT = MAX_COST_BUDGET_USD.toFixed(6);

/**
 * Adds a decision's raise to the task's budgets: `steps` to stepBudget; `tokens` to tokenBudget and
 * `usd` (US dollars) to costBudgetUsd only when the task has that budget (null = no ceiling, and it
 * stays none; decideEscalation refuses a dollar raise on such a task before it is recorded). Decimal
 * arithmetic for dollars (stored to the micro-dollar); totals are capped at what the columns hold
 * (MAX_TOKEN_BUDGET, MAX_COST_BUDGET_USD) so applying never fails on an overflow. Works inside a
 * transaction (`prisma` may be a transaction client).
 * @throws Error when the task does not exist.
 */
export async function raiseBudgets({
  prisma,
  taskId,
  increase,
}: {
  prisma: PrismaClient | Prisma.TransactionClient;
  taskId: string;
  increase: BudgetIncrease;
}): Promise<void> {
  if (!increase.steps && !increase.tokens && !increase.usd) return;
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { stepBudget: true, tokenBudget: true, costBudgetUsd: true } });
  const costBudgetUsd =
    task.costBudgetUsd === null || !increase.usd
      ? task.costBudgetUsd
      : Prisma.Decimal.min(task.costBudgetUsd.plus(new Prisma.Decimal(increase.usd).toDecimalPlaces(6)), MAX_COST_BUDGET_USD_TEXT);
  await prisma.task.update({
    where: { id: taskId },
    data: {
      stepBudget: task.stepBudget + (increase.steps ?? 0),
      tokenBudget: task.tokenBudget === null ? null : Math.min(MAX_TOKEN_BUDGET, task.tokenBudget + (increase.tokens ?? 0)),
      costBudgetUsd,
    },
  });
}

/**
 * Ends a task that waits for a human (guarded: only when still `waiting_for_human`) as `dead_end`
 * with `reason`, or `cancelled` with `reason` as its error. Returns whether it changed.
 */
export async function endWaitingTask({
  prisma,
  taskId,
  status,
  reason,
}: {
  prisma: PrismaClient | Prisma.TransactionClient;
  taskId: string;
  status: "dead_end" | "cancelled";
  reason: string;
}): Promise<boolean> {
  const data = status === "dead_end" ? { status, deadEndReason: reason, endedAt: new Date() } : { status, error: reason, endedAt: new Date() };
  const updated = await prisma.task.updateMany({ where: { id: taskId, status: "waiting_for_human" }, data });
  return updated.count === 1;
}

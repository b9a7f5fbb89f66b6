import { afterAll, describe, expect, it } from "vitest";
import { prismaApplyDecisionPorts } from "../../server/db/apply-decision-ports.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { CODE_MANAGED_KINDS } from "../../server/db/code-managed.ts";
import { openEscalation } from "../../server/db/escalation-repository.ts";
import { REQUEST_KEY_STATUSES } from "../../server/db/request-keys.ts";
import { BATCH_ACTIONS, BATCH_ITEM_STATUSES } from "../../server/domain/batch-tasks.ts";
import { CHECKPOINT_REASONS } from "../../server/domain/checkpoint.ts";
import { COST_CAUSES } from "../../server/domain/cost-causes.ts";
import { COST_OUTCOMES, COST_ROLLUP_FAILURES } from "../../server/domain/cost-rollup.ts";
import { ALERT_SEVERITIES } from "../../server/domain/detectors.ts";
import { EGRESS_ON_BREACH } from "../../lib/contracts/egress.ts";
import { EXECUTOR_RUN_STATUSES, PAUSE_KINDS, QUEUE_ITEM_KINDS } from "../../server/executor/engine/context.ts";
import { SPAN_EXPORT_STATES } from "../../server/telemetry/span-pipeline.ts";
import { EFFORT_LEVELS, EFFORT_RULES } from "../../lib/contracts/effort.ts";
import { ESCALATION_DECISIONS, ESCALATION_REASONS, ESCALATION_STATUSES } from "../../lib/contracts/escalation.ts";
import { EVAL_CELL_STATUSES, EVAL_ON_ESCALATION, EVAL_RUN_STATUSES } from "../../lib/contracts/eval.ts";
import { PROFILE_PROVIDERS } from "../../lib/contracts/profile.ts";
import {
  MODEL_CALL_STATUSES,
  RUN_CAUSES,
  RUN_END_REASONS,
  RUN_STATUSES,
  SIDE_EFFECT_STATUSES,
  STEP_KINDS,
  STEP_STATUSES,
  TASK_COMPLETION_OUTCOMES,
  TASK_STATUSES,
} from "../../lib/contracts/status.ts";
import { testDatabaseUrl } from "../support/database.ts";

/**
 * Every status-like column with a CHECK constraint (migration status_checks), and the code's array
 * its values must equal. A value added to an array without a migration that widens the constraint
 * would be refused by PostgreSQL at the first write, in a run; this test fails first.
 */
const CHECKED: readonly { table: string; column: string; values: readonly string[] }[] = [
  { table: "task", column: "status", values: TASK_STATUSES },
  { table: "task", column: "outcome", values: TASK_COMPLETION_OUTCOMES },
  { table: "run", column: "cause", values: RUN_CAUSES },
  { table: "run", column: "status", values: RUN_STATUSES },
  { table: "run", column: "endReason", values: RUN_END_REASONS },
  { table: "step", column: "kind", values: STEP_KINDS },
  { table: "step", column: "status", values: STEP_STATUSES },
  { table: "step", column: "effortLevel", values: EFFORT_LEVELS },
  { table: "step", column: "effortRule", values: EFFORT_RULES },
  { table: "side_effect", column: "status", values: SIDE_EFFECT_STATUSES },
  { table: "model_call", column: "status", values: MODEL_CALL_STATUSES },
  { table: "model_call", column: "cause", values: COST_CAUSES },
  { table: "checkpoint", column: "reason", values: CHECKPOINT_REASONS },
  { table: "alert", column: "severity", values: ALERT_SEVERITIES },
  { table: "escalation", column: "reason", values: ESCALATION_REASONS },
  { table: "escalation", column: "status", values: ESCALATION_STATUSES },
  { table: "escalation", column: "decision", values: ESCALATION_DECISIONS },
  { table: "agent_profile", column: "provider", values: PROFILE_PROVIDERS },
  { table: "agent_profile", column: "egressOnBreach", values: EGRESS_ON_BREACH },
  { table: "code_managed", column: "kind", values: CODE_MANAGED_KINDS },
  { table: "batch_operation", column: "action", values: BATCH_ACTIONS },
  { table: "batch_item", column: "status", values: BATCH_ITEM_STATUSES },
  { table: "eval_run", column: "status", values: EVAL_RUN_STATUSES },
  { table: "eval_run", column: "onEscalation", values: EVAL_ON_ESCALATION },
  { table: "eval_cell", column: "status", values: EVAL_CELL_STATUSES },
  { table: "eval_cell", column: "taskStatus", values: TASK_STATUSES },
  { table: "idempotent_request", column: "status", values: REQUEST_KEY_STATUSES },
  { table: "trace_span_export", column: "state", values: SPAN_EXPORT_STATES },
  { table: "cost_rollup", column: "outcome", values: COST_OUTCOMES },
  { table: "cost_rollup", column: "failure", values: COST_ROLLUP_FAILURES },
  { table: "cost_steps", column: "outcome", values: COST_OUTCOMES },
  { table: "executor_run", column: "status", values: EXECUTOR_RUN_STATUSES },
  { table: "executor_queue_item", column: "kind", values: QUEUE_ITEM_KINDS },
  { table: "executor_pause", column: "kind", values: PAUSE_KINDS },
];

const prisma = createPrismaClient(testDatabaseUrl());
afterAll(() => prisma.$disconnect());

interface CheckRow {
  table: string;
  name: string;
  definition: string;
  validated: boolean;
}

/** The `<table>_<column>_check` constraints as PostgreSQL holds them (pg_get_constraintdef's text). */
async function checkConstraints(): Promise<Map<string, CheckRow>> {
  const rows = await prisma.$queryRaw<CheckRow[]>`
    SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS definition, c.convalidated AS validated
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
    WHERE c.contype = 'c' AND n.nspname = current_schema()`;
  return new Map(rows.map((r) => [r.name, r]));
}

/**
 * The values a `CHECK ((col = ANY (ARRAY['a'::text, …])))` allows, in order; null when the
 * definition is not that shape on `column` (another expression would not be a plain value set).
 */
function allowedValues(definition: string, column: string): string[] | null {
  const quoted = /^[a-z_]+$/.test(column) ? column : `"${column}"`;
  const prefix = `CHECK ((${quoted} = ANY (ARRAY[`;
  if (!definition.startsWith(prefix) || !definition.endsWith("])))")) return null;
  const list = definition.slice(prefix.length, -"])))".length);
  const values = [...list.matchAll(/'((?:[^']|'')*)'::text/g)].map((m) => m[1]!.replaceAll("''", "'"));
  return values.length === list.split(",").length ? values : null;
}

describe("status CHECK constraints", () => {
  it("each equals the code's array of its column, validated against the rows", async () => {
    const constraints = await checkConstraints();
    const drift: string[] = [];
    for (const { table, column, values } of CHECKED) {
      const name = `${table}_${column}_check`;
      const row = constraints.get(name);
      if (!row) {
        drift.push(`${name}: missing`);
        continue;
      }
      expect(row.table).toBe(table);
      expect(row.validated, `${name} is validated`).toBe(true);
      const allowed = allowedValues(row.definition, column);
      if (JSON.stringify(allowed) !== JSON.stringify([...values])) {
        drift.push(`${name}: the database allows ${JSON.stringify(allowed)} (${row.definition}), the code's array is ${JSON.stringify(values)}`);
      }
    }
    expect(drift).toEqual([]);
  });

  it("refuses a value outside a set, naming the constraint; NULL stays allowed where the column is nullable", async () => {
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const profile = await prisma.agentProfile.create({ data: { name: `checks-${stamp}`, model: "scripted", provider: "scripted", tools: [] } });
    await expect(
      prisma.agentProfile.create({ data: { name: `checks-bad-${stamp}`, model: "scripted", provider: "openai-compatible", tools: [] } }),
    ).rejects.toThrow(/agent_profile_provider_check/);
    const task = await prisma.task.create({ data: { id: `t-checks-${stamp}`, goal: "g", profileId: profile.id, stepBudget: 5, workspace: "/tmp" } });
    await expect(prisma.task.update({ where: { id: task.id }, data: { status: "paused" } })).rejects.toThrow(/task_status_check/);
    const run = await prisma.run.create({ data: { id: `r-checks-${stamp}`, taskId: task.id } });
    expect(run.endReason).toBeNull();
    await expect(prisma.run.update({ where: { id: run.id }, data: { status: "failed", endReason: "timeout" } })).rejects.toThrow(/run_endReason_check/);
    // Raw SQL meets the same constraint: the executor and the cost triggers write that way.
    await expect(
      prisma.$executeRawUnsafe(`INSERT INTO step (id, "runId", index, "stepId", kind) VALUES ($1, $2, 0, 'model-0', 'sleep')`, `s-checks-${stamp}`, run.id),
    ).rejects.toThrow(/step_kind_check/);
    const untouched = await prisma.task.findUniqueOrThrow({ where: { id: task.id }, select: { status: true } });
    expect(untouched.status).toBe("queued");
    const ended = await prisma.run.update({ where: { id: run.id }, data: { status: "failed", endReason: "tool_failure" } });
    expect(ended.endReason).toBe("tool_failure");
  });

  it("takes what the writers write that the old sets missed: a tool_failure escalation's run, a handler's fact edits", async () => {
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const profile = await prisma.agentProfile.create({ data: { name: `checks-w-${stamp}`, model: "scripted", provider: "scripted", tools: [] } });
    const task = await prisma.task.create({
      data: { id: `t-checks-w-${stamp}`, goal: "g", profileId: profile.id, stepBudget: 5, workspace: "/tmp", status: "running" },
    });
    const run = await prisma.run.create({ data: { id: `r-checks-w-${stamp}`, taskId: task.id } });
    // The agent loop escalates three malformed calls in a row as tool_failure, which is also the run's end reason.
    await openEscalation({
      prisma,
      taskId: task.id,
      runId: run.id,
      stepId: "escalate-3",
      reason: "tool_failure",
      message: "3 malformed calls in a row",
      evidence: {},
      checkpointId: null,
      endReason: "tool_failure",
    });
    expect(await prisma.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, endReason: true } })).toEqual({
      status: "escalated",
      endReason: "tool_failure",
    });
    // Resuming with edited facts copies the checkpoint as reason human_edit.
    const cp = await prisma.checkpoint.create({
      data: {
        id: `cp-checks-${stamp}`,
        taskId: task.id,
        runId: run.id,
        seq: 1,
        reason: "interval",
        afterStepId: "model-2",
        nextTurn: 3,
        nextIndex: 5,
        goal: "g",
        workingSet: { a: 1 },
        completedSteps: [],
        budgetsUsed: { steps: 2, tokens: 0, costUsd: 0 },
        sideEffects: [],
      },
    });
    const copyId = await prismaApplyDecisionPorts({ prisma }).atomically((tx) =>
      tx.copyCheckpointWithEdits({ checkpointId: cp.id, edits: { a: 2 }, afterStepId: "human-3", by: "Hana" }),
    );
    expect(await prisma.checkpoint.findUniqueOrThrow({ where: { id: copyId }, select: { reason: true, workingSet: true } })).toEqual({
      reason: "human_edit",
      workingSet: { a: 2 },
    });
  });
});

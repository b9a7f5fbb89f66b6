/**
 * Bulk seeding for the UI at the scale of real use (scripts/bench-ui.ts, tests/e2e/run-page-scale.spec.ts):
 * one long task (thousands of steps over two runs — an initial run that failed on a transient error
 * and a resume from its last checkpoint — cut into segments by interval checkpoints, with failed,
 * retried and deduplicated steps and model calls with costs) and many short tasks (several sharing
 * one goal). The rows are the ones the write paths produce (server/db/run-repository.ts beginStep /
 * endStep / recordModelCall, checkpoint-repository.ts saveCheckpoint, agent-run's summaries), written
 * with multi-row INSERTs over `pg` so 10,000 tasks take seconds. Deterministic: the same options
 * give the same rows (ids carry `prefix`, times start at `start`).
 */
import pg from "pg";

type Row = Record<string, unknown>;

/** Inserts rows into `table` in chunks (≤ 60,000 parameters per statement); JSON columns as strings. */
async function insertRows(client: pg.ClientBase, table: string, rows: Row[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const perChunk = Math.max(1, Math.floor(60_000 / columns.length));
  for (let i = 0; i < rows.length; i += perChunk) {
    const chunk = rows.slice(i, i + perChunk);
    const values: unknown[] = [];
    const tuples = chunk.map((r) => `(${columns.map((c) => (values.push(r[c]), `$${values.length}`)).join(",")})`);
    await client.query(`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(",")}) VALUES ${tuples.join(",")}`, values);
  }
}

const json = (v: unknown) => JSON.stringify(v);
const TOOLS = ["list_files", "read_file", "record_fact", "web_search", "send_email"] as const;

export interface SeededLongTask {
  taskId: string;
  runIds: [string, string];
  steps: number;
  failedSteps: number;
  retriedSteps: number;
  checkpoints: number;
  /** stepId of one failed tool step (run 1). */
  aFailedStepId: string;
}

/**
 * Seeds one task of `steps` timeline steps (model + tool + checkpoint rows) in two runs: run 1
 * (initial, failed/transient) holds 60 % of them, run 2 (resume from run 1's last checkpoint) the
 * rest and completes. Every 40 model+tool steps an interval checkpoint (a segment boundary); every
 * 97th tool step fails; every 53rd step took 2–3 attempts (a model call with cause retry before the
 * good one, and the backoff inside its duration); every 300th tool step is a deduplicated repeat.
 */
export async function seedLongTask(
  client: pg.ClientBase,
  { prefix, steps, profileId, start, bulk = false }: { prefix: string; steps: number; profileId: string; start: Date; bulk?: boolean },
): Promise<SeededLongTask> {
  const taskId = `task_${prefix}long`;
  const runIds: [string, string] = [`run_${prefix}long1`, `run_${prefix}long2`];
  const split = Math.floor(steps * 0.6);
  let t = start.getTime();
  const stepRows: Row[] = [];
  const callRows: Row[] = [];
  const cpRows: Row[] = [];
  let failed = 0;
  let retried = 0;
  let aFailedStepId = "";
  let seq = 0;
  let lastCheckpointOfRun1 = "";
  for (const [r, runId] of runIds.entries()) {
    const count = r === 0 ? split : steps - split;
    let index = 0;
    let turn = 0;
    let sinceCheckpoint = 0;
    const push = (row: Row) => stepRows.push({ id: `st_${prefix}L${r}_${index}`, runId, index: index++, ...row });
    while (index < count) {
      // model step
      const stepId = `model-${turn}`;
      const tool = TOOLS[turn % TOOLS.length]!;
      const attempts = (stepRows.length + 1) % 53 === 0 ? 2 + (turn % 2) : 1;
      if (attempts > 1) retried++;
      const modelMs = 800 + ((turn * 37) % 1400);
      const backoff = attempts > 1 ? (attempts - 1) * 2_000 : 0;
      const started = new Date(t);
      const ended = new Date(t + modelMs + backoff);
      const args: Record<string, string> =
        tool === "read_file"
          ? { path: `src/file-${turn}.ts` }
          : tool === "record_fact"
            ? { key: `fact:${turn}`, value: `value ${turn}` }
            : tool === "web_search"
              ? { query: `license of package-${turn}` }
              : tool === "send_email"
                ? { to: "ops@example.com", subject: `Report ${turn}` }
                : { path: "." };
      const call = { id: `call_${turn}`, name: tool, arguments: json(args) };
      push({
        stepId,
        kind: "model",
        tool: null,
        arguments: null,
        output: json({ content: null, toolCalls: [call], finishReason: "tool_calls" }),
        status: "completed",
        error: null,
        attempts,
        promptTokens: 1200 + turn * 3,
        cachedTokens: 800,
        completionTokens: 60 + (turn % 40),
        summary: tool,
        startedAt: started,
        endedAt: ended,
        durationMs: ended.getTime() - started.getTime(),
      });
      for (let a = 0; a < attempts; a++) {
        const ok = a === attempts - 1;
        callRows.push({
          id: `mc_${prefix}L${r}_${turn}_${a}`,
          runId,
          stepId,
          attempt: a,
          model: "scripted",
          promptTokens: ok ? 1200 + turn * 3 : 0,
          cachedTokens: ok ? 800 : 0,
          completionTokens: ok ? 60 + (turn % 40) : 0,
          status: ok ? "ok" : "error",
          httpStatus: ok ? 200 : 500,
          billed: ok,
          cause: ok ? "productive" : "retry",
          latencyMs: ok ? modelMs : 300,
          error: ok ? null : "upstream 500",
          costUsd: ok ? 0.0004 + (turn % 7) * 0.0001 : 0,
          createdAt: new Date(t + a * 2_000),
        });
      }
      t = ended.getTime() + 40;
      if (index >= count) break;
      // tool step
      const toolStepId = `tool-${turn}-0`;
      const fails = (turn + 1) % 97 === 0;
      const dedup = !fails && tool === "send_email" && (turn + 1) % 300 < TOOLS.length;
      if (fails) {
        failed++;
        if (!aFailedStepId && r === 0) aFailedStepId = toolStepId;
      }
      const toolMs = 20 + ((turn * 13) % 300);
      const ts = new Date(t);
      const te = new Date(t + toolMs);
      const output = fails
        ? { error: { code: "tool_error", message: `${tool} failed: ENOENT src/file-${turn}.ts` } }
        : dedup
          ? { messageId: `msg_${turn}`, deduplicated: true }
          : { ok: true, turn, result: `result of ${tool} #${turn}` };
      push({
        stepId: toolStepId,
        kind: "tool",
        tool,
        arguments: json(args),
        output: json(output),
        status: fails ? "failed" : "completed",
        error: fails ? `[tool_error] ${tool} failed: ENOENT src/file-${turn}.ts` : null,
        attempts: 1,
        promptTokens: 0,
        cachedTokens: 0,
        completionTokens: 0,
        summary: fails
          ? `${tool}: ${tool} failed: ENOENT src/file-${turn}.ts`
          : `${tool}(${args.path ?? args.key ?? args.to ?? ""})${dedup ? " · deduplicated: the ledger returned the original result" : ""}`,
        startedAt: ts,
        endedAt: te,
        durationMs: toolMs,
      });
      t = te.getTime() + 30;
      sinceCheckpoint += 2;
      turn++;
      if (sinceCheckpoint >= 40 && index < count - 1) {
        seq++;
        const cpId = `cp_${prefix}${String(seq).padStart(4, "0")}`;
        const cpStepId = `checkpoint-${turn}`;
        const cs = new Date(t);
        push({
          stepId: cpStepId,
          kind: "checkpoint",
          tool: null,
          arguments: json({ reason: "interval" }),
          output: json({ checkpointId: cpId, seq }),
          status: "completed",
          error: null,
          attempts: 1,
          promptTokens: 0,
          cachedTokens: 0,
          completionTokens: 0,
          summary: `checkpoint #${seq} (interval)`,
          startedAt: cs,
          endedAt: new Date(t + 15),
          durationMs: 15,
        });
        cpRows.push({
          id: cpId,
          taskId,
          runId,
          seq,
          reason: "interval",
          afterStepId: `tool-${turn - 1}-0`,
          nextTurn: turn,
          nextIndex: index,
          goal: "",
          workingSet: json({ [`fact:${turn}`]: `value ${turn}` }),
          completedSteps: json([{ stepId: `tool-${turn - 1}-0`, tool, summary: "…" }]),
          openQuestion: null,
          phase: null,
          summary: `after turn ${turn}`,
          budgetsUsed: json({ steps: stepRows.length, tokens: 0, costUsd: 0 }),
          sideEffects: json([]),
          contextTokens: 900,
          transcriptTokens: 40_000,
          good: true,
          createdAt: cs,
        });
        if (r === 0) lastCheckpointOfRun1 = cpId;
        t += 20;
        sinceCheckpoint = 0;
      }
    }
    if (r === 0) t += 5 * 60_000; // the resume came five minutes later
  }
  const goal = "Audit the licenses of every dependency in the monorepo, record each one as a fact, and send the summary to ops.";
  await client.query("BEGIN");
  try {
    await insertRows(client, "task", [
      {
        id: taskId,
        goal,
        profileId,
        status: "completed",
        stepBudget: steps * 2,
        workspace: "/tmp",
        input: json({}),
        result: json({ summary: "done" }),
        createdBy: "bench",
        createdAt: start,
        updatedAt: new Date(t),
        startedAt: start,
        endedAt: new Date(t),
      },
    ]);
    await insertRows(client, "run", [
      {
        id: runIds[0],
        taskId,
        cause: "initial",
        status: "failed",
        endReason: "transient",
        error: "[server_error] upstream 500 after 5 attempts",
        segments: 1 + Math.floor(split / 40),
        fromCheckpointId: null,
        startedAt: start,
        endedAt: stepRows[split - 1]?.endedAt,
      },
      {
        id: runIds[1],
        taskId,
        cause: "resume",
        status: "completed",
        endReason: null,
        error: null,
        segments: 1,
        fromCheckpointId: lastCheckpointOfRun1 || null,
        guidance: "Skip the vendored packages.",
        startedAt: stepRows[split]?.startedAt,
        endedAt: new Date(t),
      },
    ]);
    // Bulk (bench:ui's 50,000 steps): one task's rows with per-row triggers rewrite its one summary
    // row once per step in one transaction, which slows to minutes; without them, rebuilt once after.
    if (bulk) await client.query("SET LOCAL session_replication_role = replica");
    await insertRows(client, "step", stepRows);
    await insertRows(client, "model_call", callRows);
    for (const c of cpRows) c.goal = goal;
    await insertRows(client, "checkpoint", cpRows);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
  if (bulk) await client.query("SELECT longhaul_task_cost_rebuild()");
  return { taskId, runIds, steps: stepRows.length, failedSteps: failed, retriedSteps: retried, checkpoints: cpRows.length, aFailedStepId };
}

const GOALS = [
  "Audit the licenses of the workspace's dependencies and email the report.",
  "Find out what this project is from the README in the workspace, record it as a fact, then finish.",
  "Summarise the open incidents of last week into a one-page brief.",
  "Check every link in the docs folder and list the broken ones.",
];
const STATUSES = ["completed", "completed", "completed", "failed", "dead_end", "cancelled", "running", "waiting_for_human"] as const;

/**
 * Seeds `count` short tasks (one run, 4 steps: model, tool, model, finish — with their model calls),
 * launched one minute apart before `start`, goals from a small set (so many share one goal),
 * statuses cycling through all of them; every 10th completed task has an alert. `bulk` (bench:ui's
 * 100,000 tasks): runs, steps, calls and alerts go in without their per-row triggers and the cost
 * summaries are rebuilt once after (`longhaul_task_cost_rebuild()`), as bench:costs seeds.
 */
export async function seedManyTasks(
  client: pg.ClientBase,
  { prefix, count, profileId, start, bulk = false }: { prefix: string; count: number; profileId: string; start: Date; bulk?: boolean },
): Promise<{ taskIds: string[] }> {
  const tasks: Row[] = [];
  const runs: Row[] = [];
  const steps: Row[] = [];
  const calls: Row[] = [];
  const alerts: Row[] = [];
  for (let i = 0; i < count; i++) {
    const id = `task_${prefix}${String(i).padStart(6, "0")}`;
    const runId = `run_${prefix}${String(i).padStart(6, "0")}`;
    const created = new Date(start.getTime() - (count - i) * 60_000);
    const status = STATUSES[i % STATUSES.length]!;
    const ended = status === "running" || status === "waiting_for_human" ? null : new Date(created.getTime() + 20_000 + (i % 50) * 1_000);
    tasks.push({
      id,
      goal: GOALS[i % GOALS.length]!,
      profileId,
      status,
      // Every 24th task from the 9th completed with gaps (no alert falls on those: alerts are on every 10th).
      outcome: status === "completed" ? (i % 24 === 9 ? "completed_with_gaps" : "completed") : null,
      result: status === "completed" && i % 24 === 9 ? json({ summary: "partly done", gaps: ["the last package was not read"] }) : null,
      stepBudget: 200,
      workspace: "/tmp",
      input: json({}),
      createdBy: i % 3 === 0 ? "ada" : "operator",
      createdAt: created,
      updatedAt: ended ?? created,
      startedAt: created,
      endedAt: ended,
    });
    runs.push({ id: runId, taskId: id, cause: "initial", status: status === "waiting_for_human" ? "escalated" : status, startedAt: created, endedAt: ended });
    for (let k = 0; k < 4; k++) {
      const model = k % 2 === 0;
      const stepId = model ? `model-${k / 2}` : `tool-${(k - 1) / 2}-0`;
      const s = new Date(created.getTime() + k * 3_000);
      steps.push({
        id: `st_${prefix}T${i}_${k}`,
        runId,
        index: k,
        stepId,
        kind: model ? "model" : "tool",
        tool: model ? null : "read_file",
        arguments: model ? null : json({ path: "README.md" }),
        output: json(model ? { content: null, toolCalls: [], finishReason: "stop" } : { text: "…" }),
        status: "completed",
        attempts: 1,
        promptTokens: model ? 900 + (i % 300) : 0,
        cachedTokens: 0,
        completionTokens: model ? 40 : 0,
        summary: model ? "read_file" : "read_file(README.md)",
        startedAt: s,
        endedAt: new Date(s.getTime() + 1_500),
        durationMs: 1_500,
      });
      if (model)
        calls.push({
          id: `mc_${prefix}T${i}_${k}`,
          runId,
          stepId,
          attempt: 0,
          model: "scripted",
          promptTokens: 900 + (i % 300),
          cachedTokens: 0,
          completionTokens: 40,
          status: "ok",
          httpStatus: 200,
          billed: true,
          cause: "productive",
          latencyMs: 1_400,
          costUsd: 0.0003 + (i % 11) * 0.0001,
          createdAt: s,
        });
    }
    if (status === "completed" && i % 10 === 0)
      alerts.push({
        id: `al_${prefix}${i}`,
        taskId: id,
        runId,
        stepId: "tool-0-0",
        kind: "stall",
        severity: "warning",
        message: "No working-set growth in 5 steps",
        evidence: json({}),
        createdAt: created,
      });
  }
  await client.query("BEGIN");
  try {
    await insertRows(client, "task", tasks);
    // Bulk: the ledger rows without their per-row triggers (change notifications, the task_cost and
    // rollup summaries), which the rebuild below then writes as the triggers would have.
    if (bulk) await client.query("SET LOCAL session_replication_role = replica");
    await insertRows(client, "run", runs);
    await insertRows(client, "step", steps);
    await insertRows(client, "model_call", calls);
    await insertRows(client, "alert", alerts);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  }
  if (bulk) await client.query("SELECT longhaul_task_cost_rebuild()");
  return { taskIds: tasks.map((t) => t.id as string) };
}

/** Id of the agent profile named `name` (seeded by server/db/seed.ts). @throws Error when missing. */
export async function profileIdOrThrow(client: pg.ClientBase, name = "scripted"): Promise<string> {
  const res = await client.query<{ id: string }>("SELECT id FROM agent_profile WHERE name = $1", [name]);
  const id = res.rows[0]?.id;
  if (!id) throw new Error(`agent profile ${name} not found (run the seed first)`);
  return id;
}

/**
 * `status <taskId>` (one task, exit code by its outcome: scripts/lib/cli-exit.ts) and `list` (recent
 * tasks, newest first). The rows' JSON and stderr lines are scripts/lib/cli-task.ts's.
 */
import { TASK_STATUSES } from "../../lib/contracts/status.ts";
import { exitCodeForTaskStatus } from "../lib/cli-exit.ts";
import { taskListJson, taskListLine } from "../lib/cli-task.ts";
import { api, PROGRAM, summary } from "./client.ts";
import { EXIT, type CliCommand } from "./command.ts";

const LIST_LIMIT = { min: 1, max: 200 };

export const STATUS: CliCommand = {
  spec: {
    name: "status",
    summary: "Show a task: status, steps, facts, artifacts, outbox, alerts, escalation.",
    positionals: [{ name: "taskId", description: "the task's id, as printed by launch or list" }],
    examples: [`${PROGRAM} status task_01jx…`],
  },
  async run(_values, positionals) {
    const s = await summary(positionals[0]!);
    return { ...s, [EXIT]: exitCodeForTaskStatus(s.status) };
  },
};

export const LIST: CliCommand = {
  spec: {
    name: "list",
    summary: "List recent tasks (newest first): id, status, steps used / budget, goal.",
    flags: {
      status: { type: "string", value: "<status>", description: "only tasks in this status", choices: TASK_STATUSES },
      limit: { type: "string", value: "<n>", description: "at most this many tasks, default 200", int: LIST_LIMIT },
    },
    examples: [`${PROGRAM} list`, `${PROGRAM} list --status waiting_for_human`],
  },
  async run(values) {
    const status = values.status as (typeof TASK_STATUSES)[number] | undefined;
    const { rows } = await api.task.list.query({ limit: typeof values.limit === "number" ? values.limit : LIST_LIMIT.max, ...(status ? { status } : {}) });
    for (const r of rows) process.stderr.write(`${taskListLine(r)}\n`);
    return { tasks: rows.map(taskListJson) };
  },
};

/**
 * `cancel` and `resume`: one task by id, or every task a filter matches (a batch: the task list's
 * filter, task.batchPreview / task.batchStart). `--dry-run` previews a batch; `--wait` follows it
 * until no item is pending or running, riding out a restart of the app (client.ts poll).
 */
import { FAILURE_CLASSES } from "../../lib/contracts/failure.ts";
import { TASK_STATUSES } from "../../lib/contracts/status.ts";
import { UsageError, type CommandSpec, type FlagValues } from "../lib/cli-args.ts";
import { parseTimeFlag, sinceUntilProblem } from "../lib/cli-dates.ts";
import { terminalSafe } from "../lib/cli-text.ts";
import { api, poll, PROGRAM } from "./client.ts";
import { KEY_FLAG, keyOf, type CliCommand } from "./command.ts";

/** Filter flags of a batch resume or cancel (the task list's filter: task.batchPreview / task.batchStart). */
const BATCH_FLAGS: CommandSpec["flags"] = {
  status: { type: "string", value: "<status>", description: "tasks in this status", choices: TASK_STATUSES },
  failure: { type: "string", value: "<class>", description: "tasks that failed in this class (as /costs counts them)", choices: FAILURE_CLASSES },
  profile: { type: "string", value: "<name>", description: "tasks of this agent profile" },
  since: {
    type: "string",
    value: "<time|date|Nd>",
    description: "tasks launched at or after: an ISO date-time (2026-12-01T14:05:00Z), a UTC day YYYY-MM-DD, or N days ago (30d)",
    check: (value) => parseTimeFlag({ flag: "since", value, accept: "instant" }).problem ?? null,
  },
  until: {
    type: "string",
    value: "<time|date|Nd>",
    description: "tasks launched before (the same forms as --since)",
    check: (value) => parseTimeFlag({ flag: "until", value, accept: "instant" }).problem ?? null,
  },
  "dry-run": { type: "boolean", description: "only say how many tasks it would take, which it would skip and the estimated cost" },
  wait: { type: "boolean", description: "wait until every task of the batch is done, printing progress to stderr" },
};
const BATCH_NOTES = [
  "Give a <taskId>, or at least one of --status, --failure, --profile, --since, --until for a batch (at most 1,000 tasks).",
  "A batch resume starts each task from its latest checkpoint, LONGHAUL_BATCH_CONCURRENCY runs at a time; one audit entry per task.",
];
const BATCH_FILTER_FLAGS = ["status", "failure", "profile", "since", "until"] as const;

/** The batch filter of `resume`/`cancel`, or null for one task; every usage problem at once. @throws UsageError */
function batchSelection(command: "resume" | "cancel", values: FlagValues, positionals: readonly string[]) {
  const given = BATCH_FILTER_FLAGS.filter((f) => values[f] !== undefined);
  const problems: string[] = [];
  if (positionals.length && given.length) problems.push(`<taskId>: give a task id or filter flags (${given.map((f) => `--${f}`).join(", ")}), not both`);
  if (!positionals.length && !given.length)
    problems.push(`${command} needs a <taskId> or at least one of ${BATCH_FILTER_FLAGS.map((f) => `--${f}`).join(", ")}`);
  if (positionals.length)
    for (const f of ["dry-run", "wait"] as const) if (values[f] !== undefined) problems.push(`--${f}: only applies to a batch (filter flags)`);
  const str = (f: string) => (typeof values[f] === "string" ? values[f] : undefined);
  const since = str("since") !== undefined ? parseTimeFlag({ flag: "since", value: str("since")!, accept: "instant" }) : undefined;
  const until = str("until") !== undefined ? parseTimeFlag({ flag: "until", value: str("until")!, accept: "instant" }) : undefined;
  for (const p of [since?.problem, until?.problem]) if (p !== undefined) problems.push(p);
  const order = since?.problem || until?.problem ? null : sinceUntilProblem(since?.value, until?.value, true);
  if (order) problems.push(order);
  if (problems.length) throw new UsageError(problems, command);
  if (positionals.length) return null;
  const filter = {
    ...(str("status") ? { status: [str("status") as (typeof TASK_STATUSES)[number]] } : {}),
    ...(str("failure") ? { failure: str("failure") as (typeof FAILURE_CLASSES)[number] } : {}),
    ...(str("profile") !== undefined ? { profile: str("profile") } : {}),
    ...(since?.value !== undefined ? { from: since.value } : {}),
    ...(until?.value !== undefined ? { to: until.value } : {}),
  };
  return { filter };
}

/** A batch resume or cancel: preview (--dry-run), or start it and, with --wait, follow its progress until no item is pending or running. */
async function runBatch(action: "resume" | "cancel", selection: { filter: Record<string, unknown> }, values: FlagValues) {
  const input = { action, selection } as Parameters<typeof api.task.batchPreview.query>[0];
  const describe = (p: {
    matched: number;
    taskIds: string[];
    skipped: { reason: string; count: number }[];
    estimatedUsd: number;
    unestimated: number;
    concurrency: number;
  }) => {
    process.stderr.write(`matched ${p.matched}; ${action} ${p.taskIds.length}${action === "resume" ? `, ${p.concurrency} at a time` : ""}\n`);
    for (const s of p.skipped) process.stderr.write(`  skipped ${s.count}: ${terminalSafe(s.reason)}\n`);
    if (action === "resume")
      process.stderr.write(
        `estimated cost $${p.estimatedUsd.toFixed(4)} (median completed task of each profile${p.unestimated ? `; ${p.unestimated} without an estimate` : ""})\n`,
      );
  };
  if (values["dry-run"]) {
    const p = await api.task.batchPreview.query(input);
    describe(p);
    return {
      dryRun: true,
      action,
      matched: p.matched,
      tasks: p.taskIds.length,
      taskIds: p.taskIds,
      skipped: p.skipped,
      estimatedUsd: p.estimatedUsd,
      unestimated: p.unestimated,
    };
  }
  const started = await api.task.batchStart.mutate({
    ...input,
    ...(typeof values.guidance === "string" ? { guidance: values.guidance } : {}),
    ...keyOf(values),
  });
  describe(started);
  process.stderr.write(`batch ${started.batchId} started\n`);
  let progress = await api.task.batch.query({ batchId: started.batchId });
  while (values.wait && !progress.finished) {
    await new Promise((r) => setTimeout(r, 2000));
    progress = await poll(() => api.task.batch.query({ batchId: started.batchId }), "the batch goes on");
    const c = progress.counts;
    process.stderr.write(
      `  ${c.done + c.skipped + c.failed}/${progress.total}: ${c.pending} pending, ${c.running} running, ${c.done} done, ${c.skipped} skipped, ${c.failed} failed\n`,
    );
  }
  return { batchId: started.batchId, action, tasks: started.taskIds.length, skipped: started.skipped, counts: progress.counts, finished: progress.finished };
}

export const CANCEL: CliCommand = {
  spec: {
    name: "cancel",
    summary: "Cancel a task and its running run (a no-op when already cancelled), or every task a filter matches (a batch).",
    positionals: [{ name: "taskId", description: "the task's id (or give filter flags instead)", optional: true }],
    flags: { ...BATCH_FLAGS, ...KEY_FLAG },
    notes: BATCH_NOTES,
    examples: [`${PROGRAM} cancel task_01jx…`, `${PROGRAM} cancel --status running --profile scripted --dry-run`],
  },
  async run(values, positionals) {
    const selection = batchSelection("cancel", values, positionals);
    return selection ? runBatch("cancel", selection, values) : api.task.cancel.mutate({ taskId: positionals[0]! });
  },
};

export const RESUME: CliCommand = {
  spec: {
    name: "resume",
    summary: "Resume a task from its latest checkpoint, or every task a filter matches (a batch under a concurrency cap).",
    positionals: [{ name: "taskId", description: "the task's id (or give filter flags instead)", optional: true }],
    flags: { ...BATCH_FLAGS, guidance: { type: "string", value: "<text>", description: "guidance for the resumed runs" }, ...KEY_FLAG },
    notes: BATCH_NOTES,
    examples: [
      `${PROGRAM} resume task_01jx…`,
      `${PROGRAM} resume --status failed --failure transient --since 2026-12-01T14:05:00Z --dry-run`,
      `${PROGRAM} resume --status failed --since 2026-12-01T14:05:00Z --wait`,
    ],
  },
  async run(values, positionals) {
    const selection = batchSelection("resume", values, positionals);
    if (selection) return runBatch("resume", selection, values);
    const guidance = typeof values.guidance === "string" ? { guidance: values.guidance } : {};
    return api.task.resume.mutate({ taskId: positionals[0]!, ...guidance, ...keyOf(values) });
  },
};

/**
 * Exit codes of scripts/cli.ts: a script can tell a task's outcome from the code alone. Documented in
 * the README ("Exit codes") and in `npm run cli -- --help`. Pure, no I/O.
 */

/** Every exit code the CLI uses, by meaning. */
export const EXIT_CODES = {
  /** The command did what it was asked; with `--wait` (or `status`): the task completed. */
  ok: 0,
  /** The command failed: the API refused it, or the app could not be reached (for `--wait`: for longer than it rides out). */
  commandFailed: 1,
  /** Bad usage: unknown command or flag, bad value (one line per problem, naming the flag and its limit). */
  usage: 2,
  /** The task waits for a human (an open escalation): decide it in the inbox or with `decide`. */
  waitingForHuman: 3,
  /** The task ended as a dead end (the agent showed it cannot be done, or a handler marked it). */
  deadEnd: 4,
  /** The task failed. */
  failed: 5,
  /** The task was cancelled. */
  cancelled: 6,
  /** `status` of a task still queued or running. */
  stillRunning: 7,
  /** `eval run --wait`: a gate given on the command line failed (`--min-pass-rate`, `--no-regression-from`). */
  gateFailed: 8,
} as const;

/** The table printed in `--help` and the README: code → meaning. */
export const EXIT_CODE_TABLE: readonly { code: number; meaning: string }[] = [
  { code: EXIT_CODES.ok, meaning: "ok; with --wait or status: the task completed" },
  { code: EXIT_CODES.commandFailed, meaning: "the command failed (the API refused it, or the app is unreachable)" },
  { code: EXIT_CODES.usage, meaning: "bad usage (unknown command or flag, bad value)" },
  { code: EXIT_CODES.waitingForHuman, meaning: "the task waits for a human (open escalation)" },
  { code: EXIT_CODES.deadEnd, meaning: "the task is a dead end" },
  { code: EXIT_CODES.failed, meaning: "the task failed" },
  { code: EXIT_CODES.cancelled, meaning: "the task was cancelled" },
  { code: EXIT_CODES.stillRunning, meaning: "status: the task is still queued or running" },
  { code: EXIT_CODES.gateFailed, meaning: "eval run --wait: a gate failed (--min-pass-rate, --no-regression-from)" },
];

/**
 * The exit code for a task's status (a TaskStatus, lib/contracts/status.ts), as `launch --wait` and `status` report it: completed 0,
 * waiting_for_human 3, dead_end 4, failed 5, cancelled 6, queued / running 7.
 * @throws Error for a status Longhaul does not have (the API and the CLI disagree).
 */
export function exitCodeForTaskStatus(status: string): number {
  switch (status) {
    case "completed":
      return EXIT_CODES.ok;
    case "waiting_for_human":
      return EXIT_CODES.waitingForHuman;
    case "dead_end":
      return EXIT_CODES.deadEnd;
    case "failed":
      return EXIT_CODES.failed;
    case "cancelled":
      return EXIT_CODES.cancelled;
    case "queued":
    case "running":
      return EXIT_CODES.stillRunning;
    default:
      throw new Error(`unknown task status "${status}"`);
  }
}

/**
 * A task's tokens told two ways that both hold: the tokens of the run's steps (what the token budget
 * counts: model steps' prompt + completion) and the tokens billed (every model call, as the per-task
 * CSV's "Tokens billed (every model call)" column and /costs count them) — the difference being
 * calls that are no step of the run: retried attempts, replays, checkpoint summaries, compaction,
 * work discarded after a resume, restarts. The run page shows both with the difference's causes,
 * so a manager reconciling the page with the CSV does not have to ask. Client-safe, pure.
 */

/** Model-call causes other than `productive` (server/domain/cost-causes.ts COST_CAUSES), in words. */
export const TOKEN_CAUSE_WORDS = {
  retry: "retries",
  replay: "replays",
  checkpoint: "checkpoint summaries",
  compaction: "compaction",
  discarded: "work discarded after a resume",
  restart: "restarts",
} as const;
export type NonProductiveCause = keyof typeof TOKEN_CAUSE_WORDS;

/** What the split needs: task.get's `usage` fields. */
export interface TokenSplit {
  /** Prompt + completion tokens of the run's model and tool steps (the budget's count). */
  stepTokens: number;
  /** Prompt + completion tokens of every model call (task_cost; the CSV's billed tokens). */
  billedTokens: number;
  /** Billed tokens of the calls that are no step of the run, by cause. */
  tokensByCause: Partial<Record<NonProductiveCause, number>>;
}

/**
 * "250.4K in the run's steps · 309.6K billed, incl. 59.2K in retries and compaction (41.0K retries,
 * 18.2K compaction)" — or null when the two agree. `format` writes a token count. Pure.
 */
export function tokenSplitWords(t: TokenSplit, format: (n: number) => string): string | null {
  if (t.billedTokens === t.stepTokens) return null;
  const causes = (Object.keys(TOKEN_CAUSE_WORDS) as NonProductiveCause[]).filter((c) => (t.tokensByCause[c] ?? 0) > 0);
  const head = `${format(t.stepTokens)} in the run's steps · ${format(t.billedTokens)} billed (every model call)`;
  const extra = t.billedTokens - t.stepTokens;
  if (extra <= 0 || causes.length === 0) return head;
  const names = causes.map((c) => TOKEN_CAUSE_WORDS[c]);
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const detail = causes.length > 1 ? ` (${causes.map((c) => `${format(t.tokensByCause[c]!)} ${TOKEN_CAUSE_WORDS[c]}`).join(", ")})` : "";
  return `${head}, incl. ${format(extra)} in ${list}${detail}`;
}

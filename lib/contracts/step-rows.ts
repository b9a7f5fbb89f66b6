/**
 * The step list's wire shape: `task.steps` sends a task's steps as compact tuples in one JSON text
 * (`rowsJson`, written by PostgreSQL in server/db/task-queries.ts `listSteps`), and the run page
 * decodes them (components/tasks/step-rows.ts `decodeStepRows`). Both sides take the tuple from this
 * one schema, so a column added on one side and not the other is a parse error naming its position,
 * not a silently shifted field. Client-safe.
 *
 * Written with `zod/mini`, zod's tree-shakable build (same core and parser, functions instead of
 * methods): the run page is the one page that parses with zod in the browser, and zod's classic
 * build put ~250 kB of script in front of its first paint; this schema needs tuples, strings and
 * numbers only. Tuples build no object schema, so zod's `new Function` probe (lib/contracts/zod.ts)
 * never runs here; the browser is set jitless anyway, as there. English messages are configured
 * here (classic zod does that itself; mini leaves it to the importer).
 */
import { en } from "zod/locales";
import * as z from "zod/mini";

// zod/mini carries no messages ("Invalid input"); the English ones say which limit a tuple broke.
z.config({ ...en(), ...(typeof window !== "undefined" ? { jitless: true } : {}) });

const text = z.string();
const maybeText = z.nullable(z.string());
const count = z.number();

/** One step: positions in the order `listSteps` builds them (json_build_array). */
export const stepTupleSchema = z.tuple([
  /** 0: index into `runIds`. */
  z.int().check(z.nonnegative()),
  /** 1: step id (`model-3`, `tool-3-0`, `checkpoint-2`, …). */
  text,
  /** 2: step index within its run. */
  z.int(),
  /** 3: kind (`model`, `tool`, `checkpoint`, `human`, …). */
  text,
  /** 4: tool name (tool steps), else null. */
  maybeText,
  /** 5: status. */
  text,
  /** 6: one-line summary. */
  text,
  /** 7: error text, else null. */
  maybeText,
  /** 8: attempts. */
  count,
  /** 9–11: prompt, cached and completion tokens. */
  count,
  count,
  count,
  /** 12: dollars of the step's model calls. */
  count,
  /** 13: checkpoint reason (checkpoint steps), else null. */
  maybeText,
  /** 14: started, epoch ms. */
  count,
  /** 15: ended, epoch ms, null while running. */
  z.nullable(count),
  /** 16: duration ms, null while running. */
  z.nullable(count),
  /** 17: tool arguments' short hash (tool steps: the loop detector's "same call"), else null. */
  maybeText,
  /** 18: the effort its model call ran at — [level, model, rule] (lib/contracts/effort.ts) — else null (no policy, or no model call). */
  z.nullable(z.tuple([text, text, text])),
]);

/** One step as `listSteps` sends it. */
export type StepTuple = z.infer<typeof stepTupleSchema>;

/** A `rowsJson` text: a JSON array of step tuples. */
export const stepRowsSchema = z.array(stepTupleSchema);

/**
 * Checkpoint reasons after which a run goes on in a new segment (the agent loop's `cut: true`
 * checkpoints: phase_complete, expensive_step, saturation, interval, on_request); the others
 * (before_risky, ceiling, loop, failure) precede an escalation or a risky call inside a segment.
 * The run page cuts its timeline with it, task.steps numbers the segments of a partial list with it,
 * and a model step's prompt is rebuilt from the latest such checkpoint.
 */
export const CUTTING_CHECKPOINT_REASONS: readonly string[] = ["phase_complete", "expensive_step", "saturation", "interval", "on_request"];

/**
 * Where a step list that starts part-way through a task begins (task.steps lists the newest steps):
 * `before` = the task's steps before the first listed one (0 when every step is listed), and the
 * segment the first listed step belongs to — `n`, 1-based within its run, `fromReason` the reason of
 * the checkpoint it starts from (null: the run's start), `partial` true when that segment's earlier
 * steps are not listed.
 */
export interface StepWindow {
  before: number;
  firstSegment: { n: number; fromReason: string | null; partial: boolean };
}

/** The window of a list that holds every step from the first. */
export const WHOLE_STEP_LIST: StepWindow = { before: 0, firstSegment: { n: 1, fromReason: null, partial: false } };

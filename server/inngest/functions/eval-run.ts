import { advanceEvalRun } from "../../features/evals/index.ts";
import { env } from "../../env.ts";
import { inngest } from "../client.ts";
import { evalStarted } from "../events.ts";
import { evalRunPorts } from "../function-ports.ts";

/** Pause between two ticks of an eval run (Inngest duration; LONGHAUL_EVAL_TICK, default 2 s). */
const evalTick = (): string => env().LONGHAUL_EVAL_TICK;
/**
 * Ticks per function run: then the eval run continues in a new function run (continue-as-new), so
 * no function run replays an unbounded history (Inngest caps a function run at 1,000 steps).
 */
export const EVAL_TICKS_PER_GENERATION = 200;

/**
 * `eval-run`: drives an eval run (`longhaul/eval.started`) to the end. Each tick is one step
 * (`tick-<n>`: advanceEvalRun — record ended cells, launch pending ones up to the concurrency
 * limit) followed by a sleep (`wait-<n>`); after EVAL_TICKS_PER_GENERATION ticks it sends itself on (`continue`, generation + 1); the cells themselves are ordinary `agent-run` tasks.
 * Concurrency: one `eval-run` per eval run id. Every write inside a tick is idempotent, so a
 * retried or replayed tick after a crash loses and doubles nothing.
 */
export const evalRun = inngest.createFunction(
  {
    id: "eval-run",
    name: "Run an eval",
    triggers: [evalStarted],
    retries: 10,
    concurrency: [{ key: "event.data.evalRunId", limit: 1 }],
  },
  async ({ event, step }) => {
    const { evalRunId } = event.data;
    const generation = event.data.generation ?? 0;
    for (let n = 0; n < EVAL_TICKS_PER_GENERATION; n++) {
      const r = await step.run(`tick-${n}`, () => advanceEvalRun({ evalRunId, ports: evalRunPorts() }));
      if (r.done) return { evalRunId, generation, ticks: n + 1, done: true };
      await step.sleep(`wait-${n}`, evalTick());
    }
    await step.run(
      "continue",
      async () => await inngest.send(evalStarted.create({ evalRunId, generation: generation + 1 }, { id: `eval-started-${evalRunId}-${generation + 1}` })),
    );
    return { evalRunId, generation, ticks: EVAL_TICKS_PER_GENERATION, done: false };
  },
);

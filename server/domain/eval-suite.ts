import { inputObject } from "./input-fields.ts";
import { z } from "zod";
import { launchFactsSchema } from "./launch-task.ts";
import { MAX_DEMO_PACKAGES, MAX_GOAL_CHARS, MAX_STEP_BUDGET, MAX_TOKEN_BUDGET } from "../../lib/contracts/limits.ts";
import { EVAL_ON_ESCALATION } from "../../lib/contracts/eval.ts";

/**
 * One check of a case's outcome:
 * - `status`: the task's terminal status (a case may expect `dead_end`);
 * - `cel`: a CEL expression (the `@marcbachmann/cel-js` library the executor uses) over
 *   `{status, result, facts, artifacts, outbox}` — `facts` the working set (key → value),
 *   `artifacts` name → content, `outbox` a list of `{to, subject, body}`; true passes;
 * - `artifact`: the named artifact `equals` / `contains` / matches `regex` / equals the
 *   license-audit demo's known-good CSV for the case's limit (`expected: "license-audit"`), or parses
 *   as JSON carrying the `requiredKeys`;
 * - `judge`: a profile asked `rubric` about the result; passes when it answers PASS (its cost is counted apart).
 */
export const evalCheckSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("status"), equals: z.enum(["completed", "dead_end", "failed", "cancelled", "waiting_for_human"]) }),
  z.object({ kind: z.literal("cel"), expression: z.string().min(1).max(4_000), label: z.string().max(200).optional() }),
  z.object({
    kind: z.literal("artifact"),
    name: z.string().min(1).max(200),
    equals: z.string().max(1_000_000).optional(),
    contains: z.string().max(10_000).optional(),
    regex: z.string().max(2_000).optional(),
    expected: z.literal("license-audit").optional(),
    requiredKeys: z.array(z.string().min(1).max(200)).max(100).optional(),
  }),
  z.object({ kind: z.literal("judge"), profile: z.string().min(1).max(100), rubric: z.string().min(1).max(4_000) }),
]);
export type EvalCheck = z.output<typeof evalCheckSchema>;

/** A case's launch: what launchTaskInputSchema takes, without the profile and the launch key (the eval run supplies both). */
export const evalCaseLaunchSchema = z
  .object({
    goal: z.string().trim().min(1).max(MAX_GOAL_CHARS).optional(),
    demo: z
      .object({ kind: z.literal("license-audit"), limit: z.number().int().min(1).max(MAX_DEMO_PACKAGES), emailTo: z.string().email().optional() })
      .optional(),
    workspace: z.string().min(1).max(4_096).optional(),
    facts: launchFactsSchema.optional(),
    stepBudget: z.number().int().min(1).max(MAX_STEP_BUDGET).optional(),
    tokenBudget: z.number().int().min(1).max(MAX_TOKEN_BUDGET).optional(),
    costBudgetUsd: z.number().positive().max(10_000).optional(),
  })
  .refine((v) => Boolean(v.goal) !== Boolean(v.demo), { message: "a case needs either goal or demo, not both and not neither", path: ["goal"] });
export type EvalCaseLaunch = z.output<typeof evalCaseLaunchSchema>;

/** One case in a suite file: a name unique in the suite, a launch and at least one check. */
export const evalCaseSchema = z.object({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9][a-z0-9._-]*$/, "case name: lowercase letters, digits, . _ - (kebab-case)"),
  launch: evalCaseLaunchSchema,
  checks: z.array(evalCheckSchema).min(1, "checks: at least one check per case").max(50),
});

/** A suite file (YAML or JSON, `eval apply` / `eval run <file>`): name, description, cases. */
export const evalSuiteFileSchema = z
  .object(
    {
      name: z
        .string()
        .min(1)
        .max(100)
        .regex(/^[a-z0-9][a-z0-9._-]*$/, "suite name: lowercase letters, digits, . _ -"),
      description: z.string().max(2_000).default(""),
      cases: z.array(evalCaseSchema).min(1, "cases: at least one case").max(500),
    },
    "input: must be an object with name, description, cases",
  )
  .superRefine((s, ctx) => {
    const seen = new Set<string>();
    for (const [i, c] of s.cases.entries()) {
      if (seen.has(c.name)) ctx.addIssue({ code: "custom", message: `cases[${i}].name: "${c.name}" appears twice`, path: ["cases", i, "name"] });
      seen.add(c.name);
    }
  });
export type EvalSuiteFile = z.output<typeof evalSuiteFileSchema>;

/** Start input of an eval run (browser, CLI, API). */
export const startEvalRunInputSchema = inputObject({
  suite: z.string().min(1).max(100),
  profiles: z.array(z.string().min(1).max(100)).min(1, "profiles: at least one").max(10, "profiles: at most 10"),
  repeats: z.number().int().min(1, "repeats: at least 1").max(20, "repeats: at most 20").default(1),
  concurrency: z.number().int().min(1, "concurrency: at least 1").max(50, "concurrency: at most 50").default(4),
  onEscalation: z.enum(EVAL_ON_ESCALATION).default("fail"),
});
export type StartEvalRunInput = z.input<typeof startEvalRunInputSchema>;

/** Most cells one eval run may have (cases × profiles × repeats). */
export const MAX_EVAL_CELLS = 2_000;

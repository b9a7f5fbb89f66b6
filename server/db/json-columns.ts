import type { SuperJSONResult } from "superjson";
import { z } from "zod";
import { parseBudgetBasis, type BudgetBasis } from "../domain/budget-from-history.ts";
import type { EvalCheckResult } from "../domain/eval-checks.ts";
import { evalCaseLaunchSchema, evalCheckSchema, type EvalCaseLaunch, type EvalCheck } from "../domain/eval-suite.ts";
import { parseToolSnapshot, type McpToolSnapshot } from "../domain/mcp-tool-snapshot.ts";
import { parseSmokeSpec, type SmokeSpec } from "../domain/profile-smoke.ts";
import type { Prisma } from "./client.ts";

/**
 * One codec per JSON column the code writes a typed value to. `encode` takes only the column's
 * type and gives Prisma's JSON input: the value's JSON form (what `JSON.stringify` keeps — which is
 * also all that Prisma sends and PostgreSQL stores — so writing through it changes nothing stored).
 * `decode` reads the column back with its schema: the strict ones throw a ZodError naming the path,
 * the lenient ones (`…OrNull`) return null for a value that does not parse, as their readers did
 * before. No write site casts a value to `never` or to Prisma's JSON types.
 */
export interface JsonCodec<T, R = T> {
  encode(value: T): Prisma.InputJsonValue;
  decode(json: unknown): R;
}

/** The JSON form of `value` (`JSON.stringify` then `JSON.parse`): plain objects, arrays, strings, finite numbers, booleans and null. */
function toJsonInput(value: unknown): Prisma.InputJsonValue {
  // JSON.parse returns `any`: the one place a value becomes Prisma's JSON input, and it is JSON by construction.
  return JSON.parse(JSON.stringify(value) ?? "null");
}

/** The codec of a column of type `T` read back by `decode` (which gives `R`: `T`, or `T | null` for a lenient reader). */
export function jsonColumnCodec<T, R = T>(decode: (json: unknown) => R): JsonCodec<T, R> {
  return { encode: toJsonInput, decode };
}

/** Task.input: the launch's structured input ({demo?, limit?, facts?}); an object, `{}` when empty. */
export const taskInputJson = jsonColumnCodec<Record<string, unknown>>((json) => z.record(z.string(), z.unknown()).parse(json));

/** Task.mcpTools: the MCP tools discovered at launch; null when absent or unreadable (a run then offers none). */
export const taskMcpToolsJson = jsonColumnCodec<McpToolSnapshot, McpToolSnapshot | null>(parseToolSnapshot);

/** Task.budgetBasis: the history the budgets came from; null when absent or not of the recorded shape. */
export const taskBudgetBasisJson = jsonColumnCodec<BudgetBasis, BudgetBasis | null>(parseBudgetBasis);

/** Task.smoke: a profile smoke test's plan; null for an ordinary task. */
export const taskSmokeJson = jsonColumnCodec<SmokeSpec, SmokeSpec | null>(parseSmokeSpec);

/** EvalCase.launch: the case's launch as the suite file gave it. */
export const evalCaseLaunchJson = jsonColumnCodec<EvalCaseLaunch>((json) => evalCaseLaunchSchema.parse(json));

/** EvalCase.checks: the case's checks, in the file's order. */
export const evalCaseChecksJson = jsonColumnCodec<EvalCheck[]>((json) => z.array(evalCheckSchema).parse(json));

/** One check's result as an eval cell stores it (EvalCell.checkResults; `eval.report` answers it too). */
export const evalCheckResultSchema: z.ZodType<EvalCheckResult> = z.object({
  kind: z.custom<EvalCheck["kind"]>((v) => typeof v === "string", "kind: a check kind"),
  label: z.string(),
  pass: z.boolean(),
  detail: z.string(),
  costUsd: z.number().optional(),
  unavailable: z.boolean().optional(),
});

/** EvalCell.checkResults: per check, what it saw and whether it passed. */
export const evalCellCheckResultsJson = jsonColumnCodec<EvalCheckResult[]>((json) => z.array(evalCheckResultSchema).parse(json));

/** Alert.evidence and Escalation.evidence: what the detector or the loop saw, as an object. */
export const evidenceJson = jsonColumnCodec<Record<string, unknown>>((json) => z.record(z.string(), z.unknown()).parse(json));

/** IdempotentRequest.result: the action's result, superjson-serialized (`{json, meta?}`). */
export const requestResultJson = jsonColumnCodec<SuperJSONResult>((json) =>
  z.custom<SuperJSONResult>((v) => typeof v === "object" && v !== null && "json" in v, "result: not a superjson result ({json, meta?})").parse(json),
);

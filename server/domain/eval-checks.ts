import { JUDGE_UNAVAILABLE } from "../../lib/contracts/eval.ts";
import { evalCheckExpression } from "./cel-check.ts";
import type { EvalCheck } from "./eval-suite.ts";

/** What a cell's task left behind, as the checks see it (read by server/db/eval-repository.ts). */
export interface EvalOutcome {
  /** The task's status when the cell ended (completed, dead_end, failed, cancelled, waiting_for_human). */
  status: string;
  result: unknown;
  /** The working set: key → value. */
  facts: Record<string, unknown>;
  /** Artifacts by name → content (the latest of a name). */
  artifacts: Record<string, string>;
  outbox: { to: string; subject: string; body: string }[];
}

/** One check's verdict, with what it saw (shown on the failing cell). */
export interface EvalCheckResult {
  kind: EvalCheck["kind"];
  label: string;
  pass: boolean;
  /** The values the check saw, or why it failed (at most ~500 characters). */
  detail: string;
  /** Judge checks only: the judge's spend (USD), counted apart from the cell's cost. */
  costUsd?: number;
  /**
   * Judge checks only: true when the judge gave no verdict (unreachable, an error status, a reply
   * that is neither PASS nor FAIL) after its retries — `pass` is then false, but the check says
   * nothing about the agent's work (the cell is classed {@link JUDGE_UNAVAILABLE}).
   */
  unavailable?: boolean;
}

export { JUDGE_UNAVAILABLE };

/**
 * What an {@link EvalCheckPorts.judge} throws when the judge gave no verdict after its bounded
 * retries: `attempts` made, `costUsd` the judge spent on them all the same (a billed reply that was
 * unusable), and the last reason as the message.
 */
export class JudgeUnavailableError extends Error {
  readonly attempts: number;
  readonly costUsd: number;
  constructor(message: string, { attempts, costUsd = 0, cause }: { attempts: number; costUsd?: number; cause?: unknown }) {
    super(message, { cause });
    this.name = "JudgeUnavailableError";
    this.attempts = attempts;
    this.costUsd = costUsd;
  }
}

/**
 * The verdict in a judge's reply: "pass" or "fail" when it starts with PASS or FAIL (any case,
 * leading blanks and markdown emphasis allowed — the judge is asked for "PASS or FAIL, a colon,
 * then one sentence"), else null: the reply is unusable and decides nothing. Pure.
 */
export function judgeVerdict(answer: string): "pass" | "fail" | null {
  const m = /^[\s*_`]*(PASS|FAIL)\b/i.exec(answer);
  return m ? (m[1]!.toUpperCase() === "PASS" ? "pass" : "fail") : null;
}

/** Ports the checks need beyond the outcome: the demo's known-good CSV, and a judge. */
export interface EvalCheckPorts {
  /** The license-audit demo's expected CSV for `limit` packages of the task's workspace (null: not a demo case). */
  expectedDemoCsv(): Promise<string | null>;
  /**
   * Asks `profile` the rubric about the outcome; `pass` when it answered PASS, false for FAIL.
   * @throws JudgeUnavailableError (or any error) when the judge gave no verdict: unreachable, an
   *   error status, a reply that is neither PASS nor FAIL — after the port's own bounded retries.
   */
  judge(options: { profile: string; rubric: string; outcome: EvalOutcome }): Promise<{ pass: boolean; answer: string; costUsd: number }>;
}

const clip = (s: string, n = 500): string => (s.length > n ? `${s.slice(0, n)}…` : s);

/** A check's one-line name for the matrix and the report (e.g. `artifact licenses.csv = license-audit`). */
export function describeCheck(check: EvalCheck): string {
  switch (check.kind) {
    case "status":
      return `status = ${check.equals}`;
    case "cel":
      return check.label ?? `cel ${clip(check.expression, 80)}`;
    case "artifact": {
      const how = check.expected
        ? `= ${check.expected}`
        : check.equals !== undefined
          ? "= (exact)"
          : check.contains !== undefined
            ? `contains ${JSON.stringify(clip(check.contains, 40))}`
            : check.regex !== undefined
              ? `~ /${clip(check.regex, 40)}/`
              : check.requiredKeys
                ? `JSON with ${check.requiredKeys.join(", ")}`
                : "exists";
      return `artifact ${check.name} ${how}`;
    }
    case "judge":
      return `judge ${check.profile}: ${clip(check.rubric, 60)}`;
  }
}

/**
 * Runs a case's checks over a cell's outcome, in order; every check runs (a failure does not stop
 * the others), so the failing cell shows each verdict with the values it saw. A case without a
 * `status` check expects `completed` (an implicit first check). A CEL error (a missing key, a type
 * mismatch) fails the check with the error — never a crash (server/executor/cel.ts's rule). A judge
 * that gives no verdict fails its check as `unavailable`, with the reason and what it spent.
 */
export async function runEvalChecks({
  checks,
  outcome,
  ports,
}: {
  checks: readonly EvalCheck[];
  outcome: EvalOutcome;
  ports: EvalCheckPorts;
}): Promise<EvalCheckResult[]> {
  const all: EvalCheck[] = checks.some((c) => c.kind === "status") ? [...checks] : [{ kind: "status", equals: "completed" }, ...checks];
  const results: EvalCheckResult[] = [];
  for (const check of all) {
    const label = describeCheck(check);
    switch (check.kind) {
      case "status":
        results.push({ kind: "status", label, pass: outcome.status === check.equals, detail: `status was ${outcome.status}` });
        break;
      case "cel": {
        const r = evalCheckExpression(check.expression, {
          status: outcome.status,
          result: outcome.result ?? null,
          facts: outcome.facts,
          artifacts: outcome.artifacts,
          outbox: outcome.outbox,
        });
        results.push({ kind: "cel", label, pass: r.match, detail: r.error ? `error: ${clip(r.error)}` : r.match ? "true" : "false" });
        break;
      }
      case "artifact":
        results.push({ kind: "artifact", label, ...(await checkArtifact(check, outcome, ports)) });
        break;
      case "judge":
        try {
          const j = await ports.judge({ profile: check.profile, rubric: check.rubric, outcome });
          results.push({ kind: "judge", label, pass: j.pass, detail: clip(j.answer), costUsd: j.costUsd });
        } catch (error) {
          results.push({
            kind: "judge",
            label,
            pass: false,
            unavailable: true,
            detail: `judge unavailable: ${clip(error instanceof Error ? error.message : String(error))}`,
            costUsd: error instanceof JudgeUnavailableError ? error.costUsd : 0,
          });
        }
        break;
    }
  }
  return results;
}

async function checkArtifact(
  check: Extract<EvalCheck, { kind: "artifact" }>,
  outcome: EvalOutcome,
  ports: EvalCheckPorts,
): Promise<{ pass: boolean; detail: string }> {
  const content = outcome.artifacts[check.name];
  if (content === undefined) return { pass: false, detail: `no artifact named ${check.name} (have: ${Object.keys(outcome.artifacts).join(", ") || "none"})` };
  if (check.expected === "license-audit") {
    const expected = await ports.expectedDemoCsv();
    if (expected === null) return { pass: false, detail: "expected license-audit: the case is not a license-audit demo" };
    return firstDifference(expected, content);
  }
  if (check.equals !== undefined) return firstDifference(check.equals, content);
  if (check.contains !== undefined) return { pass: content.includes(check.contains), detail: `${content.length} characters: ${clip(content, 200)}` };
  if (check.regex !== undefined) {
    let re: RegExp;
    try {
      re = new RegExp(check.regex, "m");
    } catch (error) {
      return { pass: false, detail: `invalid regex: ${error instanceof Error ? error.message : String(error)}` };
    }
    return { pass: re.test(content), detail: clip(content, 200) };
  }
  if (check.requiredKeys) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      return { pass: false, detail: `not JSON: ${clip(content, 200)}` };
    }
    const obj = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const missing = check.requiredKeys.filter((k) => !(k in obj));
    return { pass: missing.length === 0, detail: missing.length ? `missing keys: ${missing.join(", ")}` : "all keys present" };
  }
  return { pass: true, detail: `${content.length} characters` };
}

/** Equality with the first differing line named (line number, expected vs got). */
function firstDifference(expected: string, got: string): { pass: boolean; detail: string } {
  if (expected === got) return { pass: true, detail: `equal (${got.split("\n").length} lines)` };
  const a = expected.split("\n");
  const b = got.split("\n");
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return {
        pass: false,
        detail: `line ${i + 1}: expected ${JSON.stringify(clip(a[i] ?? "(end)", 200))}, got ${JSON.stringify(clip(b[i] ?? "(end)", 200))}`,
      };
  }
  return { pass: false, detail: "differs" };
}

/**
 * The failure class of an ended cell: {@link JUDGE_UNAVAILABLE} when every check that gave a verdict
 * passed and only a judge without one stands in the way (an outage, not a wrong answer); from the
 * checks when the task ended as the case expects but a check failed (`check_failed`), else from how
 * the task ended — the open
 * escalation's reason (`budget`, `loop`, `stall`, `tool_failure`, `saturation`, …), the last run's end
 * reason (`budget_exhausted` → `budget`, `transient`, `saturation`, `drift`, `loop`, `stall`,
 * `error`), `dead_end` for an unexpected dead end. Null when every check passed.
 */
export function classifyEvalFailure({
  results,
  taskStatus,
  endReason,
  escalationReason,
}: {
  results: readonly EvalCheckResult[];
  taskStatus: string;
  endReason: string | null;
  escalationReason: string | null;
}): string | null {
  if (results.every((r) => r.pass)) return null;
  if (results.every((r) => r.pass || r.unavailable)) return JUDGE_UNAVAILABLE;
  const statusOk = results.filter((r) => r.kind === "status").every((r) => r.pass);
  if (statusOk) return "check_failed";
  if (escalationReason) return escalationReason === "request_human" || escalationReason === "manual" ? "escalation" : escalationReason;
  if (taskStatus === "dead_end") return "dead_end";
  if (endReason === "budget_exhausted") return "budget";
  if (endReason === "cancelled_by_user") return "cancelled";
  if (endReason) return endReason;
  return taskStatus === "completed" ? "check_failed" : taskStatus;
}

import { env } from "../env.ts";
import type { PrismaClient } from "../db/client.ts";
import {
  checkDestinations,
  deploymentEgressPolicy,
  describeBreach,
  mergeEgressPolicies,
  type DestinationBreach,
  type EgressPolicy,
} from "../domain/egress-policy.ts";
import { findVerbatimRuns, redactValue, scanForSecrets, stringLeaves, verbatimExcerpt, type ContentFinding, type ReadContent } from "./egress-scan.ts";
import type { ToolDefinition } from "./types.ts";
import { taskProfile } from "../db/task-profile.ts";

/**
 * The egress gate: the check every call of a tool that sends something out (a tool with `egress`:
 * send_email, http_post) passes before it runs. It applies the task's policy (deployment + profile,
 * server/domain/egress-policy.ts) to the call's destinations and scans what it sends for secrets and
 * for long verbatim runs of the workspace files the task read (server/tools/egress-scan.ts).
 *
 * The gateway (`executeToolCall`) enforces the verdict: a call outside the policy is never sent
 * without an applied Approve of that very call (its fingerprint). The agent loop calls
 * {@link gateToolCall} before a risky call, inside a durable step, and escalates `risky_action`
 * with {@link EgressVerdict.summary} whenever `action` is `escalate`, whatever the task's
 * `requireApproval` says.
 */

/** What the gate decided for one call. JSON-serialisable (it is memoized as a step's output). */
export type EgressVerdict =
  | { action: "allow" }
  | {
      /** `escalate`: send only after a handler's Approve; `refuse`: never send (the policy's onBreach). */
      action: "escalate" | "refuse";
      /** Each rule the call breaks, in words a handler reads: "recipient outside allowed domains", "body carries a GitHub Token". */
      reasons: string[];
      breaches: DestinationBreach[];
      /** Secrets and file contents found, each with a redacted preview (never the secret itself). */
      findings: ContentFinding[];
      /** One line: the reasons with their details ("to: recipient outside allowed domains (x@y.org; allowed: example.com); body: …"). */
      summary: string;
      /** The call's arguments with every finding replaced by `[redacted: <label>]`, for the escalation card. */
      redactedArguments: Record<string, unknown>;
    };

/**
 * The effective policy of a task: the deployment's (environment) merged with its profile's egress
 * fields. A task that does not exist gets the deployment's policy alone.
 */
export async function loadEgressPolicy({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<EgressPolicy> {
  // The egress fields of the profile version the task launched with (server/db/task-profile.ts).
  const exists = (await prisma.task.count({ where: { id: taskId } })) > 0;
  return mergeEgressPolicies(deploymentEgressPolicy(env()), exists ? (await taskProfile({ prisma, taskId })).spec : null);
}

/** Most read_file / search_files outputs the gate compares outgoing content with (the latest ones). */
export const MAX_READS_COMPARED = 2_000;

/**
 * The file text one stored tool output gave the agent: a `read_file` output is one piece (its path,
 * byte offset and content); a `search_files` output is one piece per run of consecutive matched
 * lines of a file (joined with "\n", as they stand in the file), so a copy spanning several short
 * matched lines is found as one run. Anything else gives nothing.
 */
export function readContentsOf(tool: string | null, output: unknown): ReadContent[] {
  if (!output || typeof output !== "object") return [];
  // An MCP tool's text (server-qualified name `<server>__<tool>`, server/tools/mcp/mcp-tools.ts): what the run read through it.
  if (tool?.includes("__")) {
    const text = (output as { text?: unknown }).text;
    return typeof text === "string" && text.length > 0 ? [{ path: tool, offset: 0, content: text, source: `${tool} output` }] : [];
  }
  if (tool === "read_file") {
    const o = output as { path?: unknown; content?: unknown; offset?: unknown };
    return typeof o.content === "string" && typeof o.path === "string"
      ? [{ path: o.path, offset: typeof o.offset === "number" ? o.offset : 0, content: o.content }]
      : [];
  }
  if (tool === "search_files") {
    const matches = (output as { matches?: unknown }).matches;
    if (!Array.isArray(matches)) return [];
    const byPath = new Map<string, { line: number; text: string }[]>();
    for (const m of matches as { path?: unknown; line?: unknown; text?: unknown }[]) {
      if (typeof m?.path !== "string" || typeof m.line !== "number" || typeof m.text !== "string") continue;
      byPath.set(m.path, [...(byPath.get(m.path) ?? []), { line: m.line, text: m.text }]);
    }
    const pieces: ReadContent[] = [];
    for (const [path, lines] of byPath) {
      lines.sort((a, b) => a.line - b.line);
      let block: { line: number; text: string }[] = [];
      const flush = () => {
        if (block.length)
          pieces.push({ path, offset: 0, content: block.map((l) => l.text).join("\n"), source: `search_files lines ${block[0]!.line}–${block.at(-1)!.line}` });
        block = [];
      };
      for (const l of lines) {
        if (block.length && l.line !== block.at(-1)!.line + 1) flush();
        block.push(l);
      }
      flush();
    }
    return pieces;
  }
  return [];
}

/**
 * The text the task's agent got from `read_file`, `search_files` and MCP tools (completed steps of all its
 * runs, latest first, at most {@link MAX_READS_COMPARED} steps; see {@link readContentsOf}): what
 * "the contents of workspace files the run read" means.
 */
export async function loadReadContents({ prisma, taskId }: { prisma: PrismaClient; taskId: string }): Promise<ReadContent[]> {
  const steps = await prisma.step.findMany({
    where: { run: { taskId }, kind: "tool", OR: [{ tool: { in: ["read_file", "search_files"] } }, { tool: { contains: "__" } }], status: "completed" },
    orderBy: { startedAt: "desc" },
    take: MAX_READS_COMPARED,
    select: { tool: true, output: true },
  });
  return steps.flatMap((s) => readContentsOf(s.tool, s.output));
}

/**
 * The verdict on one call, pure given its inputs (secretlint's API is async): destinations checked
 * against `policy`, every string argument scanned for secrets and for verbatim runs of `reads`.
 * A tool without `egress` is always allowed.
 */
export async function assessEgress({
  tool,
  args,
  policy,
  reads,
}: {
  tool: ToolDefinition;
  args: unknown;
  policy: EgressPolicy;
  reads: readonly ReadContent[];
}): Promise<EgressVerdict> {
  if (!tool.egress) return { action: "allow" };
  const breaches = checkDestinations(tool.egress(args), policy);
  const findings: ContentFinding[] = [];
  for (const { field, text } of stringLeaves(args)) {
    const secrets = await scanForSecrets(text, field);
    const copies = findVerbatimRuns(text, field, reads).map((run) => ({ ...run, excerpt: verbatimExcerpt(text, run, secrets) }));
    findings.push(...secrets, ...copies);
  }
  if (breaches.length === 0 && findings.length === 0) return { action: "allow" };
  const reasons = [
    ...new Set([
      ...breaches.map((b) => b.reason),
      ...findings.map((f) =>
        f.kind === "secret" ? `${f.field} carries a secret (${f.label})` : `${f.field} carries the contents of a workspace file the run read`,
      ),
    ]),
  ];
  const summary = [...breaches.map((b) => describeBreach(b)), ...findings.map((f) => `${f.field}: ${f.label} — ${f.preview}`)].join("; ");
  return {
    action: policy.onBreach,
    reasons,
    breaches,
    findings,
    summary,
    redactedArguments: redactValue(args, findings) as Record<string, unknown>,
  };
}

/** Loads the task's policy and reads, then {@link assessEgress}. Database errors propagate (the step retries). */
export async function gateToolCall({
  prisma,
  taskId,
  tool,
  args,
}: {
  prisma: PrismaClient;
  taskId: string;
  tool: ToolDefinition;
  args: unknown;
}): Promise<EgressVerdict> {
  if (!tool.egress) return { action: "allow" };
  const [policy, reads] = await Promise.all([loadEgressPolicy({ prisma, taskId }), loadReadContents({ prisma, taskId })]);
  return assessEgress({ tool, args, policy, reads });
}

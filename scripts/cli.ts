/**
 * Longhaul's CLI, a client of the web app's tRPC API (LONGHAUL_URL, default http://127.0.0.1:$PORT).
 *
 *   npm run cli -- launch --demo license-audit [--limit 20] [--wait]
 *   npm run cli -- launch --goal "…" [--profile scripted] [--step-budget N] [--wait]
 *   npm run cli -- launch --scenario <loop|stall|budget|drift|dead_end|tool_failure> [--wait]
 *   npm run cli -- status <taskId>
 *   npm run cli -- cancel <taskId>
 *   npm run cli -- list
 *
 * Progress goes to stderr; the last stdout line is one compact JSON object (ARCHITECTURE.md). With
 * --wait, `launch` returns when the task reaches a terminal status or starts waiting for a human.
 */
import { parseArgs } from "node:util";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../server/api/root.ts";
import { SCENARIO_GOAL, SCENARIOS } from "../server/db/seed.ts";

const WAIT_DONE = new Set(["completed", "dead_end", "failed", "cancelled", "waiting_for_human"]);
const baseUrl = process.env.LONGHAUL_URL ?? `http://127.0.0.1:${process.env.PORT ?? 3000}`;
const api = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: `${baseUrl}/api/trpc`, transformer: superjson })] });

async function summary(taskId: string) {
  const t = await api.task.get.query({ taskId });
  return {
    id: t.id,
    status: t.status,
    steps: t.usage.steps,
    facts: t.facts.length,
    artifacts: t.artifacts.map((a) => ({ name: a.name, mime: a.mime, bytes: a.bytes })),
    outbox: t.outbox.map((m) => ({ to: m.to, subject: m.subject, messageId: m.messageId })),
    tokens: t.usage.promptTokens + t.usage.completionTokens,
    costUsd: Number(t.usage.costUsd.toFixed(6)),
    result: t.result,
    deadEndReason: t.deadEndReason,
    error: t.error,
    durationMs: t.startedAt ? (t.endedAt ?? new Date()).getTime() - t.startedAt.getTime() : null,
    alerts: t.alerts.map((a) => ({ kind: a.kind, severity: a.severity, step: a.stepId })),
    escalation: t.escalations[0] ? { id: t.escalations[0].id, reason: t.escalations[0].reason, status: t.escalations[0].status } : null,
  };
}

async function waitFor(taskId: string) {
  let last = "";
  for (;;) {
    const s = await summary(taskId);
    const line = `${s.status} · ${s.steps} steps · ${s.facts} facts`;
    if (line !== last) process.stderr.write(`  ${line}\n`);
    last = line;
    if (WAIT_DONE.has(s.status)) return s;
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<unknown> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      demo: { type: "string" },
      scenario: { type: "string" },
      limit: { type: "string" },
      goal: { type: "string" },
      profile: { type: "string" },
      "step-budget": { type: "string" },
      workspace: { type: "string" },
      wait: { type: "boolean", default: false },
    },
  });
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: must be a positive integer, got "${v}"`);
    return n;
  };
  switch (command) {
    case "launch": {
      if (values.demo && values.demo !== "license-audit") throw new Error(`--demo: unknown demo "${values.demo}" (known: license-audit)`);
      if (values.scenario) {
        const profile = SCENARIOS[values.scenario as keyof typeof SCENARIOS];
        if (!profile) throw new Error(`--scenario: unknown scenario "${values.scenario}" (known: ${Object.keys(SCENARIOS).join(", ")})`);
        values.profile = profile;
        values.goal ??= SCENARIO_GOAL;
      }
      if (!values.demo && !values.goal) throw new Error("launch needs --demo license-audit, --scenario <name> or --goal \"…\"");
      const launched = await api.task.launch.mutate({
        ...(values.demo ? { demo: { kind: "license-audit" as const, limit: int("limit", values.limit) ?? 50 } } : { goal: values.goal }),
        profile: values.profile ?? "scripted",
        stepBudget: int("step-budget", values["step-budget"]),
        workspace: values.workspace,
      });
      process.stderr.write(`launched ${launched.taskId} (${baseUrl}/tasks/${launched.taskId})\n`);
      return values.wait ? waitFor(launched.taskId) : summary(launched.taskId);
    }
    case "status": {
      if (!positionals[0]) throw new Error("usage: status <taskId>");
      return summary(positionals[0]);
    }
    case "cancel": {
      if (!positionals[0]) throw new Error("usage: cancel <taskId>");
      return api.task.cancel.mutate({ taskId: positionals[0] });
    }
    case "list": {
      const { rows } = await api.task.list.query({ limit: 200 });
      for (const r of rows) process.stderr.write(`${r.id}  ${r.status.padEnd(18)} ${r.stepsUsed}/${r.stepBudget}  ${r.goal.slice(0, 70)}\n`);
      return { tasks: rows.map((r) => ({ id: r.id, status: r.status, steps: r.stepsUsed })) };
    }
    default:
      throw new Error(`unknown command "${command ?? ""}" (launch, status, cancel, list)`);
  }
}

main().then(
  (out) => {
    console.log(JSON.stringify(out));
    process.exit(0);
  },
  (error: unknown) => {
    const message =
      error instanceof TRPCClientError
        ? error.message
        : error instanceof Error && /fetch failed|ECONNREFUSED/.test(`${error.message} ${error.cause instanceof Error ? error.cause.message : ""}`)
          ? `cannot reach Longhaul at ${baseUrl} — is \`npm start\` running? (set LONGHAUL_URL or PORT)`
          : error instanceof Error
            ? error.message
            : String(error);
    console.error(message);
    console.log(JSON.stringify({ error: message }));
    process.exit(1);
  },
);

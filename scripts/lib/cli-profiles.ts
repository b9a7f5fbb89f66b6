/**
 * `npm run cli -- profiles apply <file> [--dry-run]`, `profiles list [--all]`, `profiles test <name>`,
 * `profiles smoke <name> [--include-side-effects] [--wait]`: agent profiles as code over the API
 * (`profile.applyDocument`, `profile.records`, `profile.testConnection`, `profile.smoke`). Human lines on stderr, the last stdout line JSON (printed by
 * scripts/cli.ts). A document that does not validate is refused whole, one line per problem, exit 2;
 * a failed connection test exits 1. A document that applies but refers to something that does not
 * resolve now (an unset key variable or MCP `fromEnv`, a tool the server does not offer) gets one
 * `warning:` line per reference.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { TRPCClientError, type TRPCClient } from "@trpc/client";
import type { AppRouter } from "../../server/api/root.ts";
import { UsageError, type CommandSpec, type FlagValues } from "./cli-args.ts";
import { terminalSafe } from "./cli-text.ts";

const PROGRAM = "npm run cli --";

export const PROFILES_COMMANDS: readonly CommandSpec[] = [
  {
    name: "profiles apply",
    summary: "Apply a YAML or JSON file of agent profiles and MCP servers (idempotent; --dry-run prints the diff).",
    positionals: [{ name: "file", description: "a .yaml/.yml/.json file: one profile, a list, or {profiles: [...], mcpServers: [...]}" }],
    flags: { "dry-run": { type: "boolean", description: "print what would change, write nothing" } },
    notes: ["Every profile and server is validated first; if anything is wrong nothing is written (exit 2)."],
    examples: [`${PROGRAM} profiles apply examples/profiles.yaml --dry-run`, `${PROGRAM} profiles apply examples/profiles.yaml`],
  },
  {
    name: "profiles list",
    summary: "List agent profiles as JSON (current version, content, active tasks).",
    flags: { all: { type: "boolean", description: "include archived profiles" } },
    examples: [`${PROGRAM} profiles list`],
  },
  {
    name: "profiles test",
    summary: "Send one tiny request to a profile's model: ok, or the problem in words (unreachable, 401, unknown model).",
    positionals: [{ name: "name", description: "the profile's name" }],
    examples: [`${PROGRAM} profiles test scripted`],
  },
  {
    name: "profiles smoke",
    summary:
      "Smoke-test a profile's MCP tools offline: a task on the scripted smoke model (not the profile's own) calls each tool once with arguments made from its input schema.",
    positionals: [{ name: "name", description: "the profile's name" }],
    flags: {
      "include-side-effects": { type: "boolean", description: "also call side-effecting and open-world tools (through the ledger and the egress gate)" },
      wait: { type: "boolean", description: "wait for the task to end and print each tool's outcome" },
    },
    notes: [
      "Read-only, closed-world tools only by default. The JSON has per tool: outcome (called · error · refused · skipped · not_called), class, latencyMs.",
      "With --wait the exit code is the task's (0 completed); a tool that answered with an error still lets the task complete.",
    ],
    examples: [`${PROGRAM} profiles smoke mcp-audit --wait`, `${PROGRAM} profiles smoke mcp-audit --include-side-effects --wait`],
  },
];

/** A smoke test's tools as the task API reports them (task.get `smoke.tools`). */
type SmokeRows = NonNullable<Awaited<ReturnType<TRPCClient<AppRouter>["task"]["get"]["query"]>>["smoke"]>["tools"];

/** One stderr line per tool of a smoke report: outcome, name, class, latency, detail. */
export function smokeLines(rows: SmokeRows): string[] {
  return rows.map((r) => {
    const cls = r.class.readOnly ? "read-only" : r.class.idempotent ? "side effect, idempotent" : "side effect";
    const latency = r.latencyMs === null ? "" : ` ${r.latencyMs} ms`;
    return `${r.outcome.padEnd(10)} ${terminalSafe(r.name)} (${cls}${r.class.openWorld ? ", open-world" : ""})${latency}${r.detail ? ` — ${terminalSafe(r.detail.slice(0, 200))}` : ""}`;
  });
}

/**
 * `profiles smoke <name>`: launches the smoke test (profile.smoke, one launch key per invocation so
 * a retried request launches once); with `wait`, waits through `waitFor` and returns the per-tool
 * report with the task's status.
 */
export async function runProfileSmoke(
  api: TRPCClient<AppRouter>,
  values: FlagValues,
  positionals: string[],
  waitFor: (taskId: string) => Promise<{ status: string }>,
  taskUrl: (taskId: string) => string,
): Promise<{ taskId: string; status: string; model?: string; profileModel?: string; includeSideEffects: boolean; tools?: SmokeRows }> {
  const includeSideEffects = values["include-side-effects"] === true;
  const launched = await api.profile.smoke.mutate({ name: positionals[0]!, includeSideEffects, launchKey: `smoke-${randomUUID()}` });
  process.stderr.write(`launched smoke test ${launched.taskId} (${taskUrl(launched.taskId)})\n`);
  if (values.wait !== true) return { taskId: launched.taskId, status: "queued", includeSideEffects };
  const done = await waitFor(launched.taskId);
  const task = await api.task.get.query({ taskId: launched.taskId });
  const rows = task.smoke?.tools ?? [];
  for (const line of smokeLines(rows)) process.stderr.write(`  ${line}\n`);
  return {
    taskId: launched.taskId,
    status: done.status,
    ...(task.smoke ? { model: task.smoke.model, profileModel: task.smoke.profileModel } : {}),
    includeSideEffects,
    tools: rows,
  };
}

/** Marks a failed connection test so the CLI (scripts/cli/features.ts) exits 1 with the JSON still printed. */
export const PROFILES_EXIT = Symbol("profiles exit code");

/** Runs one of the profiles commands; returns the JSON to print (with PROFILES_EXIT set to 1 for a failed test). */
export async function runProfiles(api: TRPCClient<AppRouter>, command: string, values: FlagValues, positionals: string[]): Promise<unknown> {
  if (command === "profiles apply") {
    const file = positionals[0]!;
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new UsageError([`<file>: cannot read ${file} (${error.code ?? error.message})`], command);
    });
    // The file as named (relative to where the command runs): the admin page shows it as the profiles' source.
    const out = await api.profile.applyDocument.mutate({ text, dryRun: values["dry-run"] === true, source: file }).catch((error: unknown) => {
      // A refused document: its problems one a line (exit 2), as every usage error.
      if (error instanceof TRPCClientError && (error.data as { code?: string } | undefined)?.code === "BAD_REQUEST") {
        throw new UsageError(error.message.split("\n").filter(Boolean), command);
      }
      throw error;
    });
    for (const item of out.items) {
      process.stderr.write(`${item.action.padEnd(9)} ${item.kind === "profile" ? "profile" : "mcp server"} ${terminalSafe(item.name)}\n`);
      for (const c of item.changes ?? []) {
        if (item.action === "create") process.stderr.write(`    + ${terminalSafe(c.field)}: ${terminalSafe(JSON.stringify(c.to) ?? "")}\n`);
        else
          process.stderr.write(`    ~ ${terminalSafe(c.field)}: ${terminalSafe(JSON.stringify(c.from) ?? "")} → ${terminalSafe(JSON.stringify(c.to) ?? "")}\n`);
      }
    }
    process.stderr.write(`${terminalSafe(out.summary)}\n`);
    // Applied, but a launch of these profiles is refused while a reference stays unresolved.
    for (const w of out.warnings) process.stderr.write(`warning: ${terminalSafe(w)}\n`);
    return out;
  }
  if (command === "profiles list") {
    const rows = await api.profile.records.query({ includeArchived: values.all === true });
    for (const p of rows)
      process.stderr.write(
        `${terminalSafe(p.name).padEnd(28)} v${String(p.version).padEnd(4)} ${terminalSafe(p.spec.model)}${p.archivedAt ? "  (archived)" : ""}\n`,
      );
    return { profiles: rows.map((p) => ({ ...p.spec, version: p.version, archived: p.archivedAt !== null, activeTasks: p.activeTasks })) };
  }
  if (command === "profiles test") {
    const result = await api.profile.testConnection.mutate({ name: positionals[0]! });
    process.stderr.write(
      result.ok
        ? `ok: ${terminalSafe(result.model)} at ${terminalSafe(result.baseUrl)} answered in ${result.latencyMs} ms\n`
        : `${result.kind}: ${terminalSafe(result.message)}\n`,
    );
    return result.ok ? result : { ...result, [PROFILES_EXIT]: 1 };
  }
  throw new UsageError([`"${command}": unknown command`], null);
}

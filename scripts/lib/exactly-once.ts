/**
 * The exactly-once oracle of both chaos scripts (scripts/chaos.ts in harness mode, scripts/chaos-stack.ts
 * with `--stack`): given what a chaos run observed — each task's status and latest `licenses.csv`, the
 * outbox and side-effect ledger rows, the POSTs a receiver counted by `Idempotency-Key`, the `tools/call`s
 * the memory MCP server answered (logged by scripts/lib/mcp-count-proxy.mjs) and the server's graph file —
 * it returns every way the run fell short of "every task completed, every effect exactly once", one
 * violation per (task, effect), each with the count seen and the count expected.
 *
 * Pure: the scripts gather the evidence (and what each task should have produced) and pass it in; a
 * chaos run passes when this returns no violation and every target was killed (the scripts' own rule).
 *
 * The rules (a task is `completed` or it is a violation of its own):
 * - license-audit: its latest `licenses.csv` equals the expected one; at most one outbox row (email), at
 *   most one POST at the receiver (under one key or several) — when the run had a receiver — and, once
 *   completed, at least one of each;
 * - mcp-audit: each entity it should store sent (and answered) at most once by the memory server; once
 *   completed, every one of them in the server's graph; the graph holds no entity twice;
 * - the ledger: at most one row per (task, tool, fingerprint) that performed an effect — a row answered
 *   from the recorded result of the same effect (`result.deduplicated`, server/tools/ledger.ts) performed
 *   nothing and is not counted (a ledger key cannot hold two rows: it is unique).
 */
import { existsSync, readFileSync } from "node:fs";

/** A demo task the run launched and what it should have produced. */
export type ObservedTask =
  | {
      kind: "license-audit";
      taskId: string;
      /** The task's status at the end of the run (`missing` when its row is gone). */
      status: string;
      /** The content of its latest `licenses.csv` artifact (null: none), and the one `expectedLicenseCsv` computes. */
      csv: { actual: string | null; expected: string };
    }
  | {
      kind: "mcp-audit";
      taskId: string;
      status: string;
      /** The memory entity names it should store (one per finding). */
      expectedEntities: readonly string[];
    };

/** One `side_effect` ledger row. */
export interface LedgerRow {
  taskId: string;
  tool: string;
  fingerprint: string;
  idempotencyKey: string;
  /** `result.deduplicated`: answered from the recorded result of the same effect, performed nothing. */
  deduplicated: boolean;
}

/** One line of scripts/lib/mcp-count-proxy.mjs's log. */
export interface ProxyEntry {
  kind: "call" | "result";
  pid: number;
  id: number | string;
  tool?: string;
  key: string | null;
  entities?: string[];
  isError?: boolean;
}

/** Everything a chaos run observed, for {@link judgeExactlyOnce}. */
export interface ChaosEvidence {
  tasks: readonly ObservedTask[];
  /** The task of each `outbox_message` row (one row per email sent). */
  outbox: readonly { taskId: string }[];
  ledger: readonly LedgerRow[];
  /** The `Idempotency-Key` of every POST the receiver got; absent when the run started no receiver. */
  receiver?: readonly { key: string }[];
  /** The memory MCP server, counted at the server; absent when no mcp-audit task ran. */
  mcp?: { proxyLog: readonly ProxyEntry[]; graph: readonly { type?: string; name?: string }[] };
}

/** How a count differs from the expected one. */
export type ViolationKind = "not-completed" | "wrong-output" | "duplicate" | "missing";

/** One way a run fell short; `line` says it in one line (task, effect, seen vs expected). */
export interface Violation {
  kind: ViolationKind;
  /** The task, or the tasks that expected the entity (`graph` duplicates), comma-separated. */
  taskId: string;
  effect: string;
  seen: number | string;
  expected: number | string;
  /** How many effects too many (duplicate) or too few (missing); 1 for the other kinds. */
  excess: number;
  line: string;
}

/** Per-task counts, for the scripts' progress lines. */
export interface TaskTally {
  taskId: string;
  kind: ObservedTask["kind"];
  status: string;
  csvExact: boolean;
  emails: number;
  posts: number;
  postKeys: number;
  entitiesExpected: number;
  entitiesMissing: number;
  entitiesSentTwice: number;
}

/** The verdict: the violations (none on a clean run) and the counts the scripts' JSON reports. */
export interface ExactlyOnceVerdict {
  violations: Violation[];
  tasks: TaskTally[];
  counts: {
    completed: number;
    csvCorrect: number;
    /** Effects beyond one, summed over every duplicate violation. */
    duplicateSideEffects: number;
    /** Completed tasks with at least one missing effect. */
    missingSideEffects: number;
    duplicates: { receiver: number; receiverSameKey: number; outbox: number; ledger: number; mcpCalls: number; mcpGraph: number };
    missingEmails: number;
    missingEntities: number;
  };
}

/** The task an idempotency key belongs to: Longhaul's key is `<task>:<run>:<step>` (server/tools/ledger.ts). */
export function taskOfKey(key: string | null | undefined): string {
  return (key ?? "").split(":")[0] ?? "";
}

/** Counts per key. */
function tally<K>(items: Iterable<K>): Map<K, number> {
  const out = new Map<K, number>();
  for (const k of items) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

function violation(kind: ViolationKind, taskId: string, effect: string, seen: number | string, expected: number | string, excess = 1): Violation {
  const quote = (v: number | string) => (typeof v === "number" ? String(v) : JSON.stringify(v));
  return { kind, taskId, effect, seen, expected, excess, line: `${kind}: task ${taskId}: ${effect}: seen ${quote(seen)}, expected ${quote(expected)}` };
}

/** One effect counted against exactly one: a duplicate beyond one, missing when the task completed without it. */
function exactlyOne(out: Violation[], taskId: string, completed: boolean, effect: string, seen: number, detail = ""): void {
  if (seen > 1) out.push(violation("duplicate", taskId, effect, detail ? `${seen}${detail}` : seen, 1, seen - 1));
  else if (seen === 0 && completed) out.push(violation("missing", taskId, effect, 0, 1));
}

/**
 * Judges a chaos run's evidence against the rules above. Returns the violations in task order (then the
 * ledger, then the graph), per-task tallies and the aggregate counts. Never throws.
 */
export function judgeExactlyOnce(evidence: ChaosEvidence): ExactlyOnceVerdict {
  const violations: Violation[] = [];
  const tasks: TaskTally[] = [];
  const emailsBy = tally(evidence.outbox.map((o) => o.taskId));
  const postsBy = new Map<string, string[]>();
  for (const d of evidence.receiver ?? []) postsBy.set(taskOfKey(d.key), [...(postsBy.get(taskOfKey(d.key)) ?? []), d.key]);
  const proxy = evidence.mcp?.proxyLog ?? [];
  const answered = new Set(proxy.filter((p) => p.kind === "result" && !p.isError).map((p) => `${p.pid}:${p.id}`));
  const answeredPerEntity = tally(
    proxy
      .filter((p) => p.kind === "call" && p.tool === "create_entities" && answered.has(`${p.pid}:${p.id}`))
      .flatMap((c) => (c.entities ?? []).map((name) => `${taskOfKey(c.key)}\u0000${name}`)),
  );
  const inGraph = tally((evidence.mcp?.graph ?? []).filter((g) => g.type === "entity").map((g) => String(g.name)));
  const duplicates = { receiver: 0, receiverSameKey: 0, outbox: 0, ledger: 0, mcpCalls: 0, mcpGraph: 0 };
  let completed = 0;
  let csvCorrect = 0;
  let missingEmails = 0;
  let missingEntities = 0;
  const missingTasks = new Set<string>();

  for (const t of evidence.tasks) {
    const done = t.status === "completed";
    if (done) completed++;
    else violations.push(violation("not-completed", t.taskId, "task status", t.status, "completed"));
    const before = violations.length;
    const row: TaskTally = {
      taskId: t.taskId,
      kind: t.kind,
      status: t.status,
      csvExact: true,
      emails: 0,
      posts: 0,
      postKeys: 0,
      entitiesExpected: 0,
      entitiesMissing: 0,
      entitiesSentTwice: 0,
    };
    if (t.kind === "license-audit") {
      row.csvExact = t.csv.actual !== null && t.csv.actual === t.csv.expected;
      if (row.csvExact) csvCorrect++;
      else violations.push(violation("wrong-output", t.taskId, "licenses.csv", t.csv.actual === null ? "none" : "different content", "the expected CSV"));
      row.emails = emailsBy.get(t.taskId) ?? 0;
      exactlyOne(violations, t.taskId, done, "send_email (outbox rows)", row.emails);
      if (row.emails > 1) duplicates.outbox += row.emails - 1;
      if (row.emails === 0 && done) missingEmails++;
      if (evidence.receiver) {
        const keys = postsBy.get(t.taskId) ?? [];
        row.posts = keys.length;
        row.postKeys = new Set(keys).size;
        exactlyOne(violations, t.taskId, done, "http_post (POSTs at the receiver)", row.posts, ` under ${row.postKeys} key(s)`);
        duplicates.receiver += Math.max(0, row.posts - 1);
        duplicates.receiverSameKey += row.posts - row.postKeys;
      }
    } else {
      row.entitiesExpected = t.expectedEntities.length;
      for (const name of t.expectedEntities) {
        const sent = answeredPerEntity.get(`${t.taskId}\u0000${name}`) ?? 0;
        if (sent > 1) {
          violations.push(violation("duplicate", t.taskId, `memory create_entities "${name}" (answered by the server)`, sent, 1, sent - 1));
          row.entitiesSentTwice += sent - 1;
        }
      }
      duplicates.mcpCalls += row.entitiesSentTwice;
      row.entitiesMissing = t.expectedEntities.filter((name) => !inGraph.has(name)).length;
      if (done && row.entitiesMissing > 0) {
        violations.push(
          violation("missing", t.taskId, "memory entities in the graph", row.entitiesExpected - row.entitiesMissing, row.entitiesExpected, row.entitiesMissing),
        );
        missingEntities += row.entitiesMissing;
      }
    }
    if (violations.slice(before).some((v) => v.kind === "missing")) missingTasks.add(t.taskId);
    tasks.push(row);
  }

  const ledgerGroups = new Map<string, LedgerRow[]>();
  for (const r of evidence.ledger.filter((r) => !r.deduplicated)) {
    const k = `${r.taskId}\u0000${r.tool}\u0000${r.fingerprint}`;
    ledgerGroups.set(k, [...(ledgerGroups.get(k) ?? []), r]);
  }
  for (const rows of ledgerGroups.values()) {
    if (rows.length < 2) continue;
    const { taskId, tool, fingerprint } = rows[0]!;
    const effect = `${tool} (ledger rows, fingerprint ${fingerprint.slice(0, 12)}, keys ${rows.map((r) => r.idempotencyKey).join(" ")})`;
    violations.push(violation("duplicate", taskId, effect, rows.length, 1, rows.length - 1));
    duplicates.ledger += rows.length - 1;
  }

  for (const [name, n] of inGraph) {
    if (n < 2) continue;
    const owners = evidence.tasks.filter((t) => t.kind === "mcp-audit" && t.expectedEntities.includes(name)).map((t) => t.taskId);
    violations.push(violation("duplicate", owners.join(",") || "-", `memory graph entity "${name}"`, n, 1, n - 1));
    duplicates.mcpGraph += n - 1;
  }

  const duplicateSideEffects = violations.filter((v) => v.kind === "duplicate").reduce((a, v) => a + v.excess, 0);
  return {
    violations,
    tasks,
    counts: { completed, csvCorrect, duplicateSideEffects, missingSideEffects: missingTasks.size, duplicates, missingEmails, missingEntities },
  };
}

/** The JSON lines of `file` (none when it does not exist); a line cut short by a kill -9 is skipped. */
export function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T];
      } catch {
        return [];
      }
    });
}

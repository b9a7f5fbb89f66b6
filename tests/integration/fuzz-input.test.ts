import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApiToken } from "../../server/auth/api-tokens.ts";
import { ROLES } from "../../lib/contracts/roles.ts";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { childNodeArgs } from "../support/child-bundles.ts";
import { freePort } from "../support/ports.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Malformed and hostile input to every tRPC procedure over HTTP (the same fetch handler the app's
// /api/trpc route serves), and to the CLI: always a 4xx, never a 5xx, nothing written, and no
// internal text (Prisma's, a stack trace, SQL) in any message.
//
// Callers: an admin's API token (every role, so every procedure gets past the role check to its
// input validation); its header is filled in beforeAll. Every case below runs once per caller.
// Signed-out callers are refused before validation: one test below checks that for every procedure.
const admin = { name: "admin token", headers: {} as Record<string, string> };
const CALLERS: { name: string; headers: Record<string, string> }[] = [admin];
/** Procedures anyone may call signed out (what the sign-in page needs; account.session answers null to a signed-out caller). */
const PUBLIC_PROCEDURES = new Set(["account.signInOptions", "account.session"]);

/** Text that must never reach a client: ORM / driver / runtime internals. */
const INTERNAL =
  /prisma|invalid `|\bat \S+ \(|\bat \/|node_modules|\bSELECT\b|\bINSERT\b|violates|ECONNREFUSED|TypeError|ReferenceError|Cannot read prop|undefined is not|unexpected token|\bP20\d\d\b/i;

/** Ids that look right but name nothing. */
const UNKNOWN_ID = "fuzz_unknown_0001";

type Procedure = { path: string; type: "query" | "mutation"; shape: Record<string, z.ZodType> | null };

let appRouter: (typeof import("../../server/api/root.ts"))["appRouter"];
let createTRPCContext: (typeof import("../../server/api/trpc.ts"))["createTRPCContext"];
let db: PrismaClient;
let procedures: Procedure[] = [];

/** The object shape of a procedure's input schema (unwrapping defaults, optionals and pipes), or null. */
function shapeOf(schema: unknown): Record<string, z.ZodType> | null {
  let s = schema as { shape?: Record<string, z.ZodType>; _zod?: { def: { innerType?: unknown; in?: unknown } } } | undefined;
  for (let i = 0; i < 5 && s; i++) {
    if (s.shape) return s.shape;
    s = (s._zod?.def.innerType ?? s._zod?.def.in) as typeof s;
  }
  return null;
}

beforeAll(async () => {
  const url = testDatabaseUrl();
  process.env.DATABASE_URL = url; // read by server/db/prisma.ts on first use
  db = createPrismaClient(url);
  ({ appRouter } = await import("../../server/api/root.ts"));
  ({ createTRPCContext } = await import("../../server/api/trpc.ts"));
  const { token } = await createApiToken({ prisma: db, userId: null, name: "fuzz admin", roles: ROLES, days: 1 });
  admin.headers.authorization = `Bearer ${token}`;
  const defs = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string; inputs: unknown[] } }> } })._def.procedures;
  procedures = Object.entries(defs)
    .filter(([, p]) => p._def.type === "query" || p._def.type === "mutation")
    .map(([path, p]) => ({ path, type: p._def.type as Procedure["type"], shape: shapeOf(p._def.inputs[0]) }));
});
afterAll(async () => {
  await db.$disconnect();
});

/** One HTTP request to the tRPC handler: a query as GET ?input=, a mutation as POST; `raw` sends the text as is. */
async function call(
  p: Pick<Procedure, "path" | "type">,
  input: unknown,
  headers: Record<string, string> = {},
  raw?: string,
): Promise<{ status: number; message: string; code: string | null }> {
  const encoded = raw ?? JSON.stringify(input === undefined ? {} : { json: input });
  const req =
    p.type === "query"
      ? new Request(`http://fuzz.local/api/trpc/${p.path}?input=${encodeURIComponent(encoded)}`, { headers })
      : new Request(`http://fuzz.local/api/trpc/${p.path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: encoded });
  const res = await fetchRequestHandler({ endpoint: "/api/trpc", req, router: appRouter, createContext: () => createTRPCContext({ headers: req.headers }) });
  const text = await res.text();
  let body: { error?: { json?: { message?: string; data?: { code?: string } } } } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    // a non-JSON answer is reported by its text
  }
  return { status: res.status, message: body.error?.json?.message ?? (res.status >= 400 ? text : ""), code: body.error?.json?.data?.code ?? null };
}

/** Rows in every table a request could write. */
async function counts() {
  const [tasks, runs, steps, escalations, checkpoints, outbox, effects, facts, alerts] = await Promise.all([
    db.task.count(),
    db.run.count(),
    db.step.count(),
    db.escalation.count(),
    db.checkpoint.count(),
    db.outboxMessage.count(),
    db.sideEffect.count(),
    db.fact.count(),
    db.alert.count(),
  ]);
  return { tasks, runs, steps, escalations, checkpoints, outbox, effects, facts, alerts };
}

/** Free-text fields (stored as text): NUL in them is refused saying why. */
const TEXT_FIELDS = new Set(["goal", "guidance", "note", "keyPrefix", "deadEndReason", "takeOverFrom", "workspace", "profile", "launchKey"]);

/** Free-text filters of reads (task list, inbox, audit log, costs): a storable value is a search, not an error. */
const FILTER_FIELDS = new Set(["profile", "q", "model", "actor", "action", "reason", "assignee", "text"]);

const isId = (field: string) => /Id$|^cursor$/.test(field);
/** An id field of this procedure (task.list's cursor is a task id; the working set's cursors are objects or fact keys). */
const isIdField = (p: Procedure, field: string) => /Id$/.test(field) || (field === "cursor" && p.path === "task.list");

/** The input each procedure gets with one field made hostile: ids valid-looking but unknown, the launch's profile unknown (so no case launches). */
function baseInput(p: Procedure): Record<string, unknown> {
  const base: Record<string, unknown> = {};
  for (const field of Object.keys(p.shape ?? {})) if (isId(field) && field !== "cursor" && field !== "fromId") base[field] = UNKNOWN_ID;
  if (p.path === "task.launch") Object.assign(base, { profile: "fuzz-no-such-profile", goal: "fuzz" });
  if (p.path === "task.step") base.stepId = "tool-1-0";
  if (p.path === "escalation.decide") base.decision = "resume";
  if (p.path === "task.diff") base.fromId = null;
  if (p.path === "task.searchSteps") base.text = "fuzz";
  if (p.path === "template.saveFromTask") base.name = "fuzz-template";
  return base;
}

const HOSTILE_STRINGS = [
  " ",
  "\t\n",
  "a\u0000b",
  "\u0000",
  "x".repeat(100_001),
  "\ud800",
  "../../etc/passwd",
  "' OR 1=1 --",
  "<script>alert(1)</script>",
  "%00",
  "😀".repeat(30_000),
];
const HOSTILE_OTHERS: unknown[] = [1.5, -1, 1e308, true, {}, [], [1, 2], { $gt: "" }];

describe("signed out", () => {
  it("every procedure but the sign-in page's is refused with 401 before its input is read, and nothing is written", async () => {
    const before = await counts();
    for (const p of procedures.filter((q) => !PUBLIC_PROCEDURES.has(q.path))) {
      for (const input of [null, {}, { taskId: UNKNOWN_ID }]) {
        const r = await call(p, input);
        expect(r.status, `${p.path} ${JSON.stringify(input)} → ${r.status} ${r.message}`).toBe(401);
        expect(r.message).not.toMatch(INTERNAL);
      }
    }
    expect(await counts()).toEqual(before);
  });
});

describe.each(CALLERS)("hostile input ($name)", ({ headers }) => {
  it("every procedure: a null, array, string or number body is a 400 in our words, never a 5xx", async () => {
    const before = await counts();
    const seen: string[] = [];
    for (const p of procedures.filter((q) => q.shape)) {
      for (const input of [null, [], "text", 42, true]) {
        const r = await call(p, input, headers);
        seen.push(`${p.path} ${JSON.stringify(input)} → ${r.status} ${r.message}`);
        expect(r.status, seen.at(-1)).toBe(400);
        expect(r.message, seen.at(-1)).toMatch(/^input: must be an object/);
        expect(r.message).not.toMatch(INTERNAL);
      }
    }
    expect(seen.length).toBeGreaterThan(50);
    expect(await counts()).toEqual(before);
  });

  it("every field of every procedure: hostile values give a 4xx naming the field, never a 5xx or internal text, and write nothing", async () => {
    const before = await counts();
    let cases = 0;
    for (const p of procedures) {
      for (const field of Object.keys(p.shape ?? {})) {
        for (const value of [...HOSTILE_STRINGS, ...HOSTILE_OTHERS]) {
          const input = { ...baseInput(p), [field]: value };
          const r = await call(p, input, headers);
          const what = `${p.path} {${field}: ${JSON.stringify(value).slice(0, 40)}} → ${r.status} ${r.message.slice(0, 300)}`;
          cases++;
          // A free-text filter of a read may take any storable text and find nothing (200); never a 5xx.
          const filterHit = p.type === "query" && FILTER_FIELDS.has(field) && r.status === 200 && typeof value === "string" && !/[\u0000\ud800]/.test(value);
          // A value the field's own schema accepts (true for a boolean option of a read) is no hostile value there.
          const acceptedByRead = p.type === "query" && p.shape![field]!.safeParse(value).success && r.status === 200;
          if (!filterHit && !acceptedByRead) expect(r.status, what).toBeGreaterThanOrEqual(400);
          expect(r.status, what).toBeLessThan(500);
          expect(r.message, what).not.toMatch(INTERNAL);
          // A 400 names the field it is about ("goal: …", "input: …"); a value the field accepts fails on the pinned unknown ids/profile instead (404 / BAD_INPUT naming them).
          if (r.status === 400) expect(r.message, what).toMatch(/^[\w.[\]"]+: /);
          if (typeof value === "string" && value.includes("\u0000") && (TEXT_FIELDS.has(field) || isIdField(p, field)))
            expect(r.message, what).toMatch(/NUL characters|must be an id/);
          if (isIdField(p, field) && typeof value === "string" && value.trim() === "") expect(r.message, what).toContain(`${field}: must not be blank`);
        }
      }
    }
    expect(cases).toBeGreaterThan(300);
    expect(await counts()).toEqual(before);
  });

  it("reads and actions on an unknown task are 404 NOT_FOUND naming it, never 200 with an empty list", async () => {
    const taskOnly = procedures.filter(
      (p) => p.shape && Object.keys(p.shape).includes("taskId") && !["task.launch", "task.diff", "task.fork", "task.resume", "admin.audit"].includes(p.path), // admin.audit: taskId is a filter of the log
    );
    expect(taskOnly.map((p) => p.path)).toEqual(
      expect.arrayContaining([
        "task.get",
        "task.steps",
        "task.checkpoints",
        "task.cancel",
        "task.requestCheckpoint",
        "workingSet.history",
        "workingSet.summary",
        "escalation.request",
      ]),
    );
    for (const p of taskOnly) {
      const r = await call(p, baseInput(p), headers);
      expect({ path: p.path, status: r.status, code: r.code }, r.message).toEqual({ path: p.path, status: 404, code: "NOT_FOUND" });
      expect(r.message).toContain(UNKNOWN_ID);
    }
    for (const path of ["task.resume", "task.fork"]) {
      const r = await call({ path, type: "mutation" }, { taskId: UNKNOWN_ID, checkpointId: UNKNOWN_ID }, headers);
      expect(r.status, `${path}: ${r.message}`).toBe(404);
    }
  });

  it("random JSON (property-based, fast-check) to every procedure: never a 5xx, never internal text, nothing written", async () => {
    const before = await counts();
    for (const p of procedures) {
      const fields = Object.keys(p.shape ?? {});
      const arbitrary = fields.length
        ? fc.oneof(
            fc.jsonValue(),
            fc.record(Object.fromEntries(fields.map((f) => [f, fc.oneof(fc.jsonValue(), fc.string(), fc.constantFrom(...HOSTILE_STRINGS))])), {
              requiredKeys: [],
            }),
          )
        : fc.jsonValue();
      await fc.assert(
        fc.asyncProperty(arbitrary, async (generated) => {
          // The launch keeps an unknown profile and the writes keep unknown ids: no case may succeed in writing.
          const input = generated && typeof generated === "object" && !Array.isArray(generated) ? { ...(generated as object), ...pinned(p) } : generated;
          const r = await call(p, input, headers);
          return r.status < 500 && !INTERNAL.test(r.message);
        }),
        { numRuns: 25, seed: 20261201 },
      );
    }
    expect(await counts()).toEqual(before);
  });

  it("malformed requests (not JSON, batch garbage, wrong method, unknown procedure) are 4xx", async () => {
    const get = { path: "task.get", type: "query" as const };
    const launch = { path: "task.launch", type: "mutation" as const };
    for (const [p, raw] of [
      [launch, "{not json"],
      [launch, ""],
      [launch, '{"json":'],
      [get, "%%%"],
      [launch, JSON.stringify({ json: { goal: "x" }, meta: { values: { goal: ["Date"] } } })],
    ] as const) {
      const r = await call(p, undefined, headers, raw);
      expect(r.status, `${p.path} ${raw} → ${r.message}`).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(r.message).not.toMatch(INTERNAL);
    }
    expect((await call({ path: "task.launch", type: "query" }, {}, headers)).status).toBe(405);
    expect((await call({ path: "task.nope", type: "query" }, {}, headers)).status).toBe(404);
  });
});

/** Fields forced on random inputs so that no generated case can be a valid write. */
function pinned(p: Procedure): Record<string, unknown> {
  if (p.path === "task.launch") return { profile: "fuzz-no-such-profile" };
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(p.shape ?? {})) if (p.type === "mutation" && isId(field) && field !== "cursor") out[field] = UNKNOWN_ID;
  return out;
}

describe("hostile CLI arguments", () => {
  let server: Server;
  let url = "";
  beforeAll(async () => {
    // The CLI talks to this in-process copy of the web app's /api/trpc route.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const request = new Request(`http://127.0.0.1${req.url}`, {
          method: req.method,
          headers: req.headers as Record<string, string>,
          body: req.method === "GET" ? undefined : body,
        });
        void fetchRequestHandler({
          endpoint: "/api/trpc",
          req: request,
          router: appRouter,
          createContext: () => createTRPCContext({ headers: request.headers }),
        }).then(async (response) => {
          res.writeHead(response.status, Object.fromEntries(response.headers));
          res.end(Buffer.from(await response.arrayBuffer()));
        });
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
        env: { ...process.env, LONGHAUL_URL: url, LONGHAUL_TOKEN: admin.headers.authorization?.slice("Bearer ".length) ?? "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.once("exit", (code) => resolve({ code, stdout, stderr }));
    });

  it.each([
    [["status", "   "], 2, "taskId>: must not be blank"],
    [["status", UNKNOWN_ID], 1, `task ${UNKNOWN_ID} not found`],
    [["cancel", "x".repeat(5_000)], 2, "at most 100 characters"],
    [["launch", "--goal", "x", "--profile", "fuzz-no-such-profile"], 2, 'no agent profile named "fuzz-no-such-profile"'],
    [["launch", "--demo", "license-audit", "--limit", "1e9"], 2, "--limit"],
    [["decide", UNKNOWN_ID, "explode"], 2, "decision"],
    [["list", "--status", "'; DROP TABLE task; --"], 2, "--status"],
  ] as const)("cli %j → exit %i, a readable message (%s), the JSON line last, no internals", async (args, exitCode, says) => {
    const before = await counts();
    const r = await cli([...args]);
    expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: exitCode, stderr: expect.stringContaining(says) });
    expect(r.stderr).not.toMatch(INTERNAL);
    const last = r.stdout.trim().split("\n").at(-1) ?? "";
    expect(JSON.parse(last)).toHaveProperty("error");
    expect(await counts()).toEqual(before);
  });
});

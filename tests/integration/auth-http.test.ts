import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../server/auth/api-tokens.ts";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { seedDefaults } from "../../server/db/seed.ts";
import { startScriptedModelServer } from "../../server/llm/scripted/server.ts";
import { TEST_EVENT_KEY, TEST_SIGNING_KEY } from "../support/executor-harness.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Identity and roles at the HTTP boundary, through the real route handlers (app/api/auth,
// app/api/trpc, app/api/inngest, app/api/artifacts) against the test database: sign-up, sessions,
// API tokens, the role middleware, the CSRF check, the audit log, and /api/inngest's signature check.
// The executor is a stub that records what reaches it (events, registrations), answering 200.

const APP = "http://127.0.0.1:3999";
let db: PrismaClient;
let stub: Server;
const stubHits: string[] = [];
let trpcRoute: typeof import("../../app/api/trpc/[trpc]/route.ts");
let authRoute: typeof import("../../app/api/auth/[...all]/route.ts");
let inngestRoute: typeof import("../../app/api/inngest/route.ts");
let artifactRoute: typeof import("../../app/api/artifacts/[id]/route.ts");

beforeAll(async () => {
  stub = createServer((req, res) => {
    stubHits.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url?.startsWith("/e/") ? { ids: ["evt"], status: 200 } : { ok: true }));
    });
  });
  await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
  Object.assign(process.env, {
    DATABASE_URL: testDatabaseUrl(),
    INNGEST_BASE_URL: `http://127.0.0.1:${(stub.address() as AddressInfo).port}`,
    INNGEST_SIGNING_KEY: TEST_SIGNING_KEY,
    INNGEST_EVENT_KEY: TEST_EVENT_KEY,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    BETTER_AUTH_URL: APP,
  });
  delete process.env.INNGEST_DEV;
  db = createPrismaClient(testDatabaseUrl());
  await seedDefaults(db);
  // The first sign-up must meet an empty user table (other files create no users).
  await db.auditEvent.deleteMany();
  await db.apiToken.deleteMany();
  await db.user.deleteMany();
  trpcRoute = await import("../../app/api/trpc/[trpc]/route.ts");
  authRoute = await import("../../app/api/auth/[...all]/route.ts");
  inngestRoute = await import("../../app/api/inngest/route.ts");
  artifactRoute = await import("../../app/api/artifacts/[id]/route.ts");
});

afterAll(async () => {
  await db?.$disconnect();
  await new Promise((r) => stub?.close(r));
});

/** POSTs JSON to a better-auth route; returns the status and the session cookie it set (name=value). */
async function authPost(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await authRoute.POST(
    new Request(`${APP}/api/auth${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: APP, ...headers },
      body: JSON.stringify(body),
    }),
  );
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { status: res.status, cookie, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

/** Calls one tRPC procedure over HTTP (superjson envelope); returns status, data and error message. */
async function trpc(kind: "query" | "mutation", path: string, input: unknown, headers: Record<string, string> = {}) {
  const url = kind === "query" ? `${APP}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}` : `${APP}/api/trpc/${path}`;
  const req = new Request(url, {
    method: kind === "query" ? "GET" : "POST",
    headers: { "content-type": "application/json", ...headers },
    ...(kind === "mutation" ? { body: JSON.stringify({ json: input }) } : {}),
  });
  const res = await (kind === "query" ? trpcRoute.GET(req) : trpcRoute.POST(req));
  const json = (await res.json()) as { result?: { data?: { json?: unknown } }; error?: { json?: { message?: string } } };
  return { status: res.status, data: json.result?.data?.json as Record<string, unknown> | undefined, message: json.error?.json?.message ?? null };
}

/** Calls /api/inngest's PUT or POST handler with a plain Request (Next passes a NextRequest; serve() reads only the Request part). */
function inngestCall(req: Request): Promise<Response> {
  const handler = inngestRoute[req.method as "PUT" | "POST"] as unknown as (r: Request, ctx: unknown) => Promise<Response>;
  return handler(req, undefined);
}

const launchInput = { goal: "Summarise the README in the workspace.", profile: "scripted" };

/** A user with `roles` and an API token acting with them. */
async function userWithToken(name: string, roles: ("operator" | "handler" | "manager" | "admin")[]) {
  const user = await db.user.create({ data: { id: `usr_${name}`, name, email: `${name}@auth.test`, roles } });
  const { token } = await createApiToken({ prisma: db, userId: user.id, name: `${name}-token`, roles, days: 1 });
  return { user, auth: { authorization: `Bearer ${token}` } };
}

describe("identity and roles over HTTP", () => {
  let adminCookie = "";

  it("the first sign-up becomes admin with every role; the next one gets no role and is refused reads, naming the roles", async () => {
    const first = await authPost("/sign-up/email", { email: "first@auth.test", password: "first-password-1", name: "First" });
    expect(first.status).toBe(200);
    expect(first.cookie).toMatch(/longhaul\.session_token=/);
    adminCookie = first.cookie;
    const me = await trpc("query", "account.me", null, { cookie: adminCookie });
    expect(me.data).toMatchObject({ name: "First", roles: ["operator", "handler", "manager", "admin"], via: "session" });
    // account.session: the same fields signed in; 200 with null signed out (the pages ask it, so a signed-out visit logs no 401), where account.me is a 401.
    const session = await trpc("query", "account.session", null, { cookie: adminCookie });
    expect(session.data).toEqual(me.data);
    const signedOut = await trpc("query", "account.session", null);
    expect([signedOut.status, signedOut.data]).toEqual([200, null]);
    expect((await trpc("query", "account.me", null)).status).toBe(401);
    // The grant no admin made is in the audit log too.
    const grants = await db.auditEvent.findMany({ where: { action: "auth.firstAdmin" } });
    expect(grants).toHaveLength(1);
    expect(grants[0]).toMatchObject({
      actor: "First",
      via: "sign-up",
      target: "First <first@auth.test>",
      details: { roles: ["operator", "handler", "manager", "admin"] },
    });

    const second = await authPost("/sign-up/email", { email: "second@auth.test", password: "second-password-1", name: "first" });
    expect(second.status).toBe(200);
    const secondMe = await trpc("query", "account.me", null, { cookie: second.cookie });
    // Display names are unique (case-insensitively): the second "first" is told apart by email.
    expect(secondMe.data).toMatchObject({ name: "first (second@auth.test)", roles: [] });
    // A look-alike is the same name: zero-width and bidi characters are dropped, NFKC applied.
    for (const [i, [lookalike, seen]] of [
      ["Fir\u200bst", "First"],
      ["\u202efirst\u202c", "first"],
      ["ｆｉｒｓｔ", "first"],
    ].entries()) {
      const email = `lookalike-${i}@auth.test`;
      const signed = await authPost("/sign-up/email", { email, password: "lookalike-password-1", name: lookalike });
      expect(signed.status).toBe(200);
      expect((await trpc("query", "account.me", null, { cookie: signed.cookie })).data).toMatchObject({ name: `${seen} (${email})` });
    }
    const list = await trpc("query", "task.list", {}, { cookie: second.cookie });
    expect(list.status).toBe(403);
    expect(list.message).toContain("task.list: this needs one of the roles operator, handler, manager, admin");
  });

  it("a mutation without a session, with a forged token, an expired one or a revoked one is refused and changes nothing", async () => {
    const before = { tasks: await db.task.count(), audit: await db.auditEvent.count() };
    const none = await trpc("mutation", "task.launch", launchInput);
    expect(none.status).toBe(401);
    expect(none.message).toMatch(/sign in first/);
    const forged = await trpc("mutation", "task.launch", launchInput, { authorization: "Bearer lh_forgedforgedforgedforgedforgedforgedforged" });
    expect(forged.status).toBe(401);
    expect(forged.message).toMatch(/invalid or revoked/);
    const forgedCookie = await trpc("mutation", "task.launch", launchInput, { cookie: "longhaul.session_token=forged.value" });
    expect(forgedCookie.status).toBe(401);

    const { token: expired } = await createApiToken({
      prisma: db,
      userId: null,
      name: "old",
      roles: ["operator"],
      days: 1,
      now: new Date(Date.now() - 2 * 86_400_000),
    });
    const late = await trpc("mutation", "task.launch", launchInput, { authorization: `Bearer ${expired}` });
    expect(late.status).toBe(401);
    expect(late.message).toMatch(/expired at/);

    const created = await createApiToken({ prisma: db, userId: null, name: "gone", roles: ["operator"], days: 1 });
    await db.apiToken.update({ where: { id: created.id }, data: { revokedAt: new Date() } });
    const revoked = await trpc("mutation", "task.launch", launchInput, { authorization: `Bearer ${created.token}` });
    expect(revoked.status).toBe(401);

    expect({ tasks: await db.task.count(), audit: await db.auditEvent.count() }).toEqual(before);
    expect(stubHits.filter((h) => h.startsWith("POST /e/"))).toEqual([]);
  });

  it("a cookie-authenticated mutation from another origin is refused (CSRF); the same from this app's origin works", async () => {
    const before = await db.task.count();
    const evil = await trpc("mutation", "task.launch", launchInput, { cookie: adminCookie, origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    expect(evil.message).toContain("cross-site request refused");
    const fetchSite = await trpc("mutation", "task.launch", launchInput, { cookie: adminCookie, "sec-fetch-site": "cross-site" });
    expect(fetchSite.status).toBe(403);
    expect(await db.task.count()).toBe(before);
    const ok = await trpc("mutation", "task.launch", launchInput, { cookie: adminCookie, origin: APP, "sec-fetch-site": "same-origin" });
    expect(ok.status, ok.message ?? "").toBe(200);
    expect(await db.task.findUnique({ where: { id: ok.data!.taskId as string } })).toMatchObject({ createdBy: "First" });
  });

  it("each role does its own: a manager reads but cannot launch (403 naming operator); an operator cannot cancel another's task; a handler cannot launch; every action is audited with its actor", async () => {
    const manager = await userWithToken("mia", ["manager"]);
    const ops = await userWithToken("otto", ["operator"]);
    const other = await userWithToken("olga", ["operator"]);
    const handler = await userWithToken("hank", ["handler"]);

    expect((await trpc("query", "task.list", {}, manager.auth)).status).toBe(200);
    const refused = await trpc("mutation", "task.launch", launchInput, manager.auth);
    expect(refused.status).toBe(403);
    expect(refused.message).toBe("task.launch: this needs the operator role");
    expect((await trpc("mutation", "task.launch", launchInput, handler.auth)).message).toBe("task.launch: this needs the operator role");
    expect((await trpc("query", "admin.users", null, ops.auth)).message).toBe("admin.users: this needs the admin role");
    expect((await trpc("mutation", "escalation.claim", { escalationId: "esc_x" }, ops.auth)).message).toBe("escalation.claim: this needs the handler role");

    const launched = await trpc("mutation", "task.launch", launchInput, ops.auth);
    expect(launched.status).toBe(200);
    const taskId = launched.data!.taskId as string;
    expect(await db.task.findUnique({ where: { id: taskId }, select: { createdBy: true } })).toEqual({ createdBy: "otto" });

    const notMine = await trpc("mutation", "task.cancel", { taskId }, other.auth);
    expect(notMine.status).toBe(403);
    expect(notMine.message).toContain("was launched by otto");
    expect((await db.task.findUnique({ where: { id: taskId } }))!.status).not.toBe("cancelled");
    const mine = await trpc("mutation", "task.cancel", { taskId }, ops.auth);
    expect(mine.status, mine.message ?? "").toBe(200);
    expect((await db.task.findUnique({ where: { id: taskId } }))!.status).toBe("cancelled");

    const audit = await db.auditEvent.findMany({ where: { taskId }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.actor, a.action, a.via.startsWith("token:")])).toEqual([
      ["otto", "task.launch", true],
      ["otto", "task.cancel", true],
    ]);
    const viaApi = await trpc("query", "admin.audit", { actor: "ott", taskId }, { cookie: adminCookie });
    expect((viaApi.data!.events as { action: string }[]).map((e) => e.action)).toEqual(["task.cancel", "task.launch"]);
    // Action is a substring too, case-insensitive; `_` and `%` are only themselves, not LIKE wildcards.
    const byPart = await trpc("query", "admin.audit", { action: "CANCEL", taskId }, { cookie: adminCookie });
    expect((byPart.data!.events as { action: string }[]).map((e) => e.action)).toEqual(["task.cancel"]);
    for (const wildcard of ["_", "%", "task_cancel"]) {
      const none = await trpc("query", "admin.audit", { action: wildcard, taskId }, { cookie: adminCookie });
      expect(none.data!.events, wildcard).toEqual([]);
      const nobody = await trpc("query", "admin.audit", { actor: wildcard, taskId }, { cookie: adminCookie });
      expect(nobody.data!.events, wildcard).toEqual([]);
    }
  });

  it("a token is shown once, stored hashed, acts with no more than its owner's roles, and can be revoked by its owner", async () => {
    const created = await trpc("mutation", "account.createToken", { name: "cli", roles: ["operator"], expiresInDays: 7 }, { cookie: adminCookie, origin: APP });
    expect(created.status, created.message ?? "").toBe(200);
    const token = created.data!.token as string;
    expect(token).toMatch(/^lh_[A-Za-z0-9_-]{43}$/);
    const row = await db.apiToken.findUniqueOrThrow({ where: { id: created.data!.id as string } });
    expect(row.tokenHash).not.toContain(token.slice(3));
    expect(JSON.stringify(await trpc("query", "account.tokens", null, { cookie: adminCookie }))).not.toContain(token);
    const asToken = await trpc("query", "account.me", null, { authorization: `Bearer ${token}` });
    expect(asToken.data).toMatchObject({ name: "First", roles: ["operator"], via: "token" });
    // A token cannot mint tokens, and a user cannot give a token a role they lack.
    expect((await trpc("mutation", "account.createToken", { name: "x" }, { authorization: `Bearer ${token}` })).status).toBe(403);
    const hank = await db.user.findUniqueOrThrow({ where: { email: "hank@auth.test" } });
    expect((await trpc("mutation", "admin.setRoles", { userId: hank.id, roles: ["admin"] }, { authorization: `Bearer ${token}` })).message).toBe(
      "admin.setRoles: this needs the admin role",
    );

    expect((await trpc("mutation", "account.revokeToken", { tokenId: row.id }, { cookie: adminCookie, origin: APP })).status).toBe(200);
    expect((await trpc("query", "account.me", null, { authorization: `Bearer ${token}` })).status).toBe(401);
    // The audit row says which token: its name and prefix, and the id unredacted.
    const revoked = await db.auditEvent.findFirstOrThrow({ where: { action: "account.revokeToken" }, orderBy: { at: "desc" } });
    expect(revoked).toMatchObject({ actor: "First", target: `token "cli" (${row.prefix}…)`, details: { tokenId: row.id } });
  });

  it("the last admin cannot lose admin; an admin grants roles, which take effect at once", async () => {
    const first = await db.user.findUniqueOrThrow({ where: { email: "first@auth.test" } });
    const lastAdmin = await trpc("mutation", "admin.setRoles", { userId: first.id, roles: ["operator"] }, { cookie: adminCookie, origin: APP });
    expect(lastAdmin.status).toBe(409);
    expect(lastAdmin.message).toContain("last active admin");
    const second = await db.user.findUniqueOrThrow({ where: { email: "second@auth.test" } });
    expect((await trpc("mutation", "admin.setRoles", { userId: second.id, roles: ["manager"] }, { cookie: adminCookie, origin: APP })).status).toBe(200);
    const signedIn = await authPost("/sign-in/email", { email: "second@auth.test", password: "second-password-1" });
    expect((await trpc("query", "task.list", {}, { cookie: signedIn.cookie })).status).toBe(200);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "admin.setRoles", target: `${second.name} <${second.email}>` } });
    expect(audit).toMatchObject({ actor: "First", via: "session" });
  });

  it("an admin resets a user's password from /admin: the old one stops working, the new one works, the user's sessions end; audited without the password; others are refused", async () => {
    await authPost("/sign-up/email", { email: "reset@auth.test", password: "reset-old-password-1", name: "Reset" });
    const user = await db.user.findUniqueOrThrow({ where: { email: "reset@auth.test" } });
    const session = await authPost("/sign-in/email", { email: "reset@auth.test", password: "reset-old-password-1" });
    expect((await trpc("query", "account.me", null, { cookie: session.cookie })).status).toBe(200);
    // Not for the user themselves (no admin role), and a bad password is a 400 naming the limit.
    const refused = await trpc("mutation", "admin.setPassword", { userId: user.id, password: "mine-now-12345" }, { cookie: session.cookie, origin: APP });
    expect(refused.status).toBe(403);
    const short = await trpc("mutation", "admin.setPassword", { userId: user.id, password: "short" }, { cookie: adminCookie, origin: APP });
    expect(short.status).toBe(400);
    expect(short.message).toContain("password: at least 8 characters");
    expect((await trpc("mutation", "admin.setPassword", { userId: "usr_none", password: "whatever-123" }, { cookie: adminCookie, origin: APP })).status).toBe(
      404,
    );

    await db.user.update({ where: { id: user.id }, data: { roles: ["operator"] } });
    const { token: resetToken } = await createApiToken({ prisma: db, userId: user.id, name: "reset-token", roles: ["operator"], days: 1 });
    expect((await trpc("query", "account.me", null, { authorization: `Bearer ${resetToken}` })).status).toBe(200);
    const reset = await trpc("mutation", "admin.setPassword", { userId: user.id, password: "reset-new-password-2" }, { cookie: adminCookie, origin: APP });
    expect(reset.status).toBe(200);
    expect(reset.data).toMatchObject({ userId: user.id });
    expect(Number(reset.data?.sessionsEnded)).toBeGreaterThanOrEqual(2); // sign-up's session and the sign-in's
    expect((await trpc("query", "account.me", null, { cookie: session.cookie })).status).toBe(401);
    expect((await authPost("/sign-in/email", { email: "reset@auth.test", password: "reset-old-password-1" })).status).toBe(401);
    // Whoever held the old password could have minted a token: the reset revokes them.
    expect(reset.data).toMatchObject({ tokensRevoked: 1 });
    expect((await trpc("query", "account.me", null, { authorization: `Bearer ${resetToken}` })).status).toBe(401);
    expect((await authPost("/sign-in/email", { email: "reset@auth.test", password: "reset-new-password-2" })).status).toBe(200);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "admin.setPassword", target: `${user.name} <${user.email}>` } });
    expect(audit).toMatchObject({ actor: "First", via: "session" });
    expect(JSON.stringify(audit)).not.toContain("reset-new-password-2");
  });

  it("a display name is an identity: a user cannot rename themselves (to a colleague's name or any other), and no one signs up as the CLI token's actor", async () => {
    const op = await authPost("/sign-up/email", { email: "rename@auth.test", password: "rename-password-1", name: "Renamer" });
    expect(op.status).toBe(200);
    const renamed = await authPost("/update-user", { name: "First" }, { cookie: op.cookie });
    expect(renamed.status).toBe(403);
    expect(JSON.stringify(renamed.body)).toContain("name: a display name cannot be changed");
    expect((await authPost("/update-user", { name: "Someone new" }, { cookie: op.cookie })).status).toBe(403);
    expect((await db.user.findUniqueOrThrow({ where: { email: "rename@auth.test" } })).name).toBe("Renamer");
    // Other profile fields still update (the same name sent back is no rename).
    expect((await authPost("/update-user", { name: "Renamer", image: "https://example.com/a.png" }, { cookie: op.cookie })).status).toBe(200);

    const cli = await authPost("/sign-up/email", { email: "cli@auth.test", password: "cli-password-1", name: "Local-CLI" });
    expect(cli.status).toBe(200);
    expect((await db.user.findUniqueOrThrow({ where: { email: "cli@auth.test" } })).name).toBe("Local-CLI (cli@auth.test)");
  });

  it("sign-in with a wrong password fails; sign-out ends the session", async () => {
    expect((await authPost("/sign-in/email", { email: "first@auth.test", password: "wrong-password" })).status).toBe(401);
    const session = await authPost("/sign-in/email", { email: "first@auth.test", password: "first-password-1" });
    expect((await trpc("query", "account.me", null, { cookie: session.cookie })).status).toBe(200);
    expect((await authPost("/sign-out", {}, { cookie: session.cookie })).status).toBe(200);
    const after = await trpc("query", "account.me", null, { cookie: session.cookie });
    expect(after.status).toBe(401);
    // The browser is told what happened, not how to send an API token.
    expect(after.message).toBe("signed out — your session ended; sign in again");
  });

  it("an expired session is refused: reads 401, mutations change nothing", async () => {
    const session = await authPost("/sign-in/email", { email: "first@auth.test", password: "first-password-1" });
    expect((await trpc("query", "account.me", null, { cookie: session.cookie })).status).toBe(200);
    const token = decodeURIComponent(/longhaul\.session_token=([^;]+)/.exec(session.cookie)![1]!).split(".")[0]!;
    await db.session.update({ where: { token }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const before = await db.task.count();
    expect((await trpc("query", "account.me", null, { cookie: session.cookie })).status).toBe(401);
    expect((await trpc("mutation", "task.launch", launchInput, { cookie: session.cookie, origin: APP })).status).toBe(401);
    expect(await db.task.count()).toBe(before);
  });

  it("artifacts need a signed-in role", async () => {
    const res = await artifactRoute.GET(new Request(`${APP}/api/artifacts/art_x`), { params: Promise.resolve({ id: "art_x" }) });
    expect(res.status).toBe(401);
    const withCookie = await artifactRoute.GET(new Request(`${APP}/api/artifacts/art_x`, { headers: { cookie: adminCookie } }), {
      params: Promise.resolve({ id: "art_x" }),
    });
    expect(withCookie.status).toBe(404);
  });

  it("an artifact downloads as what it is: binary bytes with their media type, a legacy base64 row decoded, text as UTF-8", async () => {
    const profile = await db.agentProfile.findFirstOrThrow({ where: { name: "scripted" } });
    const taskId = `t-art-${Date.now()}`;
    await db.task.create({ data: { id: taskId, goal: "artifact download", profileId: profile.id, stepBudget: 5, workspace: "/tmp" } });
    await db.run.create({ data: { id: `${taskId}-r`, taskId } });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0xfe]);
    const base = { taskId, runId: `${taskId}-r`, stepId: "tool-1-0" };
    const binary = await db.artifact.create({ data: { ...base, name: "a.png", mime: "image/png", content: "", data: new Uint8Array(png), bytes: png.length } });
    // As MCP images were stored before: the base64 text under "<type>;base64".
    const legacy = await db.artifact.create({
      data: { ...base, name: "old.png", mime: "image/png;base64", content: png.toString("base64"), bytes: png.length },
    });
    const text = await db.artifact.create({ data: { ...base, name: "l.csv", mime: "text/csv", content: "name,license\nzod,MIT\n", bytes: 21 } });
    const get = (id: string, query = "") =>
      artifactRoute.GET(new Request(`${APP}/api/artifacts/${id}${query}`, { headers: { cookie: adminCookie } }), { params: Promise.resolve({ id }) });
    for (const a of [binary, legacy]) {
      const res = await get(a.id);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${a.name}"`);
      expect(Buffer.from(await res.arrayBuffer())).toEqual(png);
    }
    // A binary artifact is never shown inline, even when asked.
    expect((await get(binary.id, "?inline=1")).headers.get("content-disposition")).toMatch(/^attachment/);
    const csv = await get(text.id, "?inline=1");
    expect(csv.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await csv.text()).toBe("name,license\nzod,MIT\n");
    expect((await get(text.id)).headers.get("content-type")).toBe("text/csv; charset=utf-8");
  });

  it("/api/inngest: an unsigned PUT does not make the app re-register, and an unsigned or forged step call runs nothing", async () => {
    const hitsBefore = stubHits.length;
    const stepsBefore = await db.step.count();
    const put = await inngestCall(new Request(`${APP}/api/inngest`, { method: "PUT" }));
    expect(put.status).toBe(401);
    const inBand = await inngestCall(
      new Request(`${APP}/api/inngest`, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band" },
        body: JSON.stringify({ url: "http://attacker.example/api/inngest" }),
      }),
    );
    expect(inBand.status).toBe(401);
    const forged = await inngestCall(
      new Request(`${APP}/api/inngest?fnId=longhaul-agent-run&stepId=step`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-inngest-signature": `t=${Math.floor(Date.now() / 1000)}&s=${"0".repeat(64)}` },
        body: JSON.stringify({ event: { name: "longhaul/run.started", data: {} }, events: [], steps: {}, ctx: { run_id: "r", attempt: 0 } }),
      }),
    );
    expect(forged.status).toBe(401);
    expect(stubHits.slice(hitsBefore).filter((h) => h.includes("/fn/register"))).toEqual([]);
    expect(await db.step.count()).toBe(stepsBefore);
  });

  it("the scripted model server refuses browsers (an Origin header) and rebound hostnames; nothing gets armed", async () => {
    const model = await startScriptedModelServer({ port: 0 });
    const origin = model.baseUrl.replace(/\/v1$/, "");
    try {
      const fault = JSON.stringify({ kind: "500", count: 1 });
      const fromPage = await fetch(`${origin}/control/faults`, {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "text/plain" },
        body: fault,
      });
      expect(fromPage.status).toBe(403);
      const { request } = await import("node:http");
      const rebound = await new Promise<number>((resolve, reject) => {
        const req = request(`${origin}/control/faults`, { method: "POST", headers: { host: "evil.example", "content-type": "application/json" } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end(fault);
      });
      expect(rebound).toBe(403);
      const armed = (await (await fetch(`${origin}/control/faults`)).json()) as { faults: unknown[] };
      expect(armed.faults).toEqual([]);
    } finally {
      await model.stop();
    }
  });
});

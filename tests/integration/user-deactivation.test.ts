import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { createApiToken } from "../../server/auth/api-tokens.ts";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { httpApp } from "../support/http-app.ts";
import { testDatabaseUrl } from "../support/database.ts";

// Deactivating a user, through the real route handlers (app/api/auth, app/api/trpc) against the test
// database: sign-in refused, the sessions they hold refused at once, their API tokens refused, the
// audit row naming them, reactivation, and the refusals (oneself, the last active admin). The
// database is shared with other files: every user here has its own suffix, and nothing assumes
// which other users exist.

const APP = "http://127.0.0.1:3998";
let db: PrismaClient;
let users: typeof import("../../server/auth/users.ts");
const suffix = ulid().toLowerCase().slice(-8);
const { authPost, trpc } = httpApp(APP);

beforeAll(async () => {
  Object.assign(process.env, {
    DATABASE_URL: testDatabaseUrl(),
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    BETTER_AUTH_URL: APP,
  });
  db = createPrismaClient(testDatabaseUrl());
  users = await import("../../server/auth/users.ts");
});

afterAll(async () => {
  await db?.user.deleteMany({ where: { email: { endsWith: `-${suffix}@deactivate.test` } } });
  await db?.$disconnect();
});

/** A user with a password (admin.createUser's own path), signed in: its id and session cookie. */
async function signedInUser(name: string, roles: ("operator" | "handler" | "manager" | "admin")[]) {
  const email = `${name}-${suffix}@deactivate.test`;
  const password = `${name}-password-1`;
  const user = await users.createUserWithPassword({ prisma: db, input: { email, name: `${name}-${suffix}`, password, roles } });
  const session = await authPost("/sign-in/email", { email, password });
  expect(session.status).toBe(200);
  return { id: user.id, email, password, name: user.name, cookie: session.cookie };
}

describe("deactivating a user", () => {
  it("refuses their sign-in, their open session and their API token at once; audited by name; reactivation lets them back", async () => {
    const admin = await signedInUser("boss", ["admin"]);
    const dora = await signedInUser("dora", ["operator"]);
    const { token } = await createApiToken({ prisma: db, userId: dora.id, name: "dora-cli", roles: ["operator"], days: 1 });
    const bearer = { authorization: `Bearer ${token}` };
    expect((await trpc("query", "account.me", null, { cookie: dora.cookie })).status).toBe(200);
    expect((await trpc("query", "account.me", null, bearer)).status).toBe(200);

    const done = await trpc("mutation", "admin.deactivate", { userId: dora.id }, { cookie: admin.cookie });
    expect(done.status).toBe(200);
    expect(done.data).toMatchObject({ id: dora.id, email: dora.email });
    expect(Number(done.data?.sessionsEnded)).toBeGreaterThanOrEqual(1);

    // The session she holds stops working at once; so does her token, saying why.
    expect((await trpc("query", "task.list", {}, { cookie: dora.cookie })).status).toBe(401);
    const byToken = await trpc("query", "account.me", null, bearer);
    expect(byToken.status).toBe(401);
    expect(byToken.message).toContain("deactivated");
    // Signing in again with the right password is refused in words.
    const again = await authPost("/sign-in/email", { email: dora.email, password: dora.password });
    expect(again.status).toBe(403);
    expect(again.body?.message).toBe("this account is deactivated: ask an admin to reactivate it");
    expect(again.cookie).not.toMatch(/session_token=[^;]+/);

    // The admin list shows her deactivated; the audit row names her, not her id.
    const list = await trpc("query", "admin.users", null, { cookie: admin.cookie });
    const row = (list.data as unknown as { id: string; deactivatedAt: string | null }[]).find((u) => u.id === dora.id);
    expect(row?.deactivatedAt).toBeTruthy();
    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "admin.deactivate", userId: admin.id }, orderBy: { id: "desc" } });
    expect(audit.target).toBe(`${dora.name} <${dora.email}>`);
    expect(audit.actor).toBe(admin.name);

    const back = await trpc("mutation", "admin.reactivate", { userId: dora.id }, { cookie: admin.cookie });
    expect(back.status).toBe(200);
    expect(back.data).toMatchObject({ deactivatedAt: null });
    expect((await trpc("query", "account.me", null, bearer)).status).toBe(200);
    expect((await authPost("/sign-in/email", { email: dora.email, password: dora.password })).status).toBe(200);
    const reAudit = await db.auditEvent.findFirstOrThrow({ where: { action: "admin.reactivate", userId: admin.id } });
    expect(reAudit.target).toBe(`${dora.name} <${dora.email}>`);
    // A user added by the admin is named in the audit row too (not the new id).
    const fay = { email: `fay-${suffix}@deactivate.test`, name: `fay-${suffix}`, password: "fay-password-1", roles: [] };
    expect((await trpc("mutation", "admin.createUser", fay, { cookie: admin.cookie })).status).toBe(200);
    const added = await db.auditEvent.findFirstOrThrow({ where: { action: "admin.createUser", userId: admin.id } });
    expect(added.target).toBe(`${fay.name} <${fay.email}>`);
  });

  it("an admin cannot deactivate themselves, nor the last active admin; a non-admin cannot deactivate anyone; an unknown user is a 404", async () => {
    const admin = await signedInUser("chief", ["admin"]);
    const eve = await signedInUser("eve", ["operator"]);
    const self = await trpc("mutation", "admin.deactivate", { userId: admin.id }, { cookie: admin.cookie });
    expect(self.status).toBe(409);
    expect(self.message).toBe("userId: you cannot deactivate your own account; ask another admin");
    expect((await trpc("mutation", "admin.deactivate", { userId: admin.id }, { cookie: eve.cookie })).status).toBe(403);
    expect((await trpc("mutation", "admin.deactivate", { userId: "usr_nobody" }, { cookie: admin.cookie })).status).toBe(404);
    expect((await trpc("mutation", "admin.deactivate", { userId: "" }, { cookie: admin.cookie })).message).toBe("userId: must not be blank");

    // The last active admin: other active admins (of other test files) are set aside for this
    // check, and the local CLI token (no user of its own) asks — a user admin would be the last
    // admin standing themselves.
    const others = await db.user.findMany({ where: { roles: { has: "admin" }, deactivatedAt: null, id: { not: admin.id } }, select: { id: true } });
    const cli = await createApiToken({ prisma: db, userId: null, name: `cli-${suffix}`, roles: ["admin"], days: 1 });
    await db.user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { deactivatedAt: new Date() } });
    try {
      const last = await trpc("mutation", "admin.deactivate", { userId: admin.id }, { authorization: `Bearer ${cli.token}` });
      expect(last.status).toBe(409);
      expect(last.message).toBe("userId: this is the last active admin; give another user admin first");
      // Nor may the last active admin lose the role while a deactivated admin still holds it.
      const demote = await trpc("mutation", "admin.setRoles", { userId: admin.id, roles: ["operator"] }, { cookie: admin.cookie });
      expect(demote.status).toBe(409);
      expect(demote.message).toContain("last active admin");
    } finally {
      await db.user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { deactivatedAt: null } });
      await db.apiToken.delete({ where: { id: cli.id } });
    }
    expect((await trpc("query", "account.me", null, { cookie: admin.cookie })).status).toBe(200);
  });
});

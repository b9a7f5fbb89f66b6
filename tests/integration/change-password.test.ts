import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { createApiToken } from "../../server/auth/api-tokens.ts";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { httpApp } from "../support/http-app.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A user changes their own password (account.changePassword) through the real route handlers
// against the test database: the current password is required, limits are named, the other
// sessions end while this one stays, the new password signs in and the old one does not, and the
// audit row holds neither password. Users here have their own suffix (the database is shared).

const APP = "http://127.0.0.1:3997";
let db: PrismaClient;
let users: typeof import("../../server/auth/users.ts");
const suffix = ulid().toLowerCase().slice(-8);
const { authPost, trpc } = httpApp(APP);

beforeAll(async () => {
  Object.assign(process.env, { DATABASE_URL: testDatabaseUrl(), BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef", BETTER_AUTH_URL: APP });
  db = createPrismaClient(testDatabaseUrl());
  users = await import("../../server/auth/users.ts");
});

afterAll(async () => {
  const gone = await db?.user.findMany({ where: { email: { endsWith: `-${suffix}@password.test` } }, select: { id: true } });
  await db?.verification.deleteMany({ where: { identifier: { in: (gone ?? []).map((u) => `password-change-failure:${u.id}`) } } });
  await db?.user.deleteMany({ where: { email: { endsWith: `-${suffix}@password.test` } } });
  await db?.$disconnect();
});

describe("changing one's own password", () => {
  it("refuses further guesses at the current password after 5 wrong ones in a minute, without checking them; better-auth's own endpoint is off", async () => {
    const email = `guess-${suffix}@password.test`;
    const real = "guess-real-password-1";
    await users.createUserWithPassword({ prisma: db, input: { email, name: `guess-${suffix}`, password: real, roles: ["operator"] } });
    const session = await authPost("/sign-in/email", { email, password: real });
    const cookie = { cookie: session.cookie };
    for (let i = 0; i < 5; i++) {
      const wrong = await trpc("mutation", "account.changePassword", { currentPassword: `guess-${i}-wrong`, newPassword: "guess-new-password-2" }, cookie);
      expect(wrong.status).toBe(400);
    }
    // The sixth is refused even with the right password: it is not checked at all.
    const limited = await trpc("mutation", "account.changePassword", { currentPassword: real, newPassword: "guess-new-password-2" }, cookie);
    expect(limited.status).toBe(429);
    expect(limited.message).toMatch(/^currentPassword: 5 wrong tries in a minute; try again in \d+ s$/);
    // The count is kept in the database (every web-app process reads the same rows).
    const user = await db.user.findUniqueOrThrow({ where: { email } });
    expect(await db.verification.count({ where: { identifier: `password-change-failure:${user.id}` } })).toBe(5);
    expect((await authPost("/sign-in/email", { email, password: real })).status).toBe(200);
    // better-auth's change-password would bypass the audit and the limit: it is not served.
    expect((await authPost("/change-password", { currentPassword: real, newPassword: "guess-new-password-3" }, cookie)).status).toBe(404);
  });

  it("counts concurrent guesses too: of 12 sent at once, at most 5 are checked", async () => {
    const email = `burst-${suffix}@password.test`;
    const real = "burst-real-password-1";
    await users.createUserWithPassword({ prisma: db, input: { email, name: `burst-${suffix}`, password: real, roles: ["operator"] } });
    const cookie = { cookie: (await authPost("/sign-in/email", { email, password: real })).cookie };
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        trpc("mutation", "account.changePassword", { currentPassword: `burst-${i}-wrong`, newPassword: "burst-new-password-2" }, cookie),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 400 && s !== 429)).toEqual([]);
    expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
  });

  it("needs the current password, names the field and limit, ends the other sessions, keeps this one; audited without passwords", async () => {
    const email = `pat-${suffix}@password.test`;
    const old = "pat-old-password-1";
    const fresh = "pat-new-password-2";
    const user = await users.createUserWithPassword({ prisma: db, input: { email, name: `pat-${suffix}`, password: old, roles: ["operator"] } });
    const here = await authPost("/sign-in/email", { email, password: old });
    const elsewhere = await authPost("/sign-in/email", { email, password: old });
    expect(here.status).toBe(200);
    expect(elsewhere.status).toBe(200);
    const cookie = { cookie: here.cookie };

    const short = await trpc("mutation", "account.changePassword", { currentPassword: old, newPassword: "short" }, cookie);
    expect(short.status).toBe(400);
    expect(short.message).toBe("newPassword: at least 8 characters");
    const long = await trpc("mutation", "account.changePassword", { currentPassword: old, newPassword: "x".repeat(129) }, cookie);
    expect(long.message).toBe("newPassword: at most 128 characters");
    const wrong = await trpc("mutation", "account.changePassword", { currentPassword: "not-my-password", newPassword: fresh }, cookie);
    expect(wrong.status).toBe(400);
    expect(wrong.message).toContain("currentPassword: incorrect");
    const missing = await trpc("mutation", "account.changePassword", { newPassword: fresh }, cookie);
    expect(missing.status).toBe(400);
    expect(missing.message).toContain("currentPassword");
    // An API token cannot change the password.
    const { token } = await createApiToken({ prisma: db, userId: user.id, name: "pat-cli", roles: ["operator"], days: 1 });
    const byToken = await trpc("mutation", "account.changePassword", { currentPassword: old, newPassword: fresh }, { authorization: `Bearer ${token}` });
    expect(byToken.status).toBe(403);
    // Nothing above changed it.
    expect((await trpc("query", "account.me", null, { cookie: elsewhere.cookie })).status).toBe(200);

    const done = await trpc("mutation", "account.changePassword", { currentPassword: old, newPassword: fresh }, cookie);
    expect(done.status).toBe(200);
    expect(Number(done.data?.sessionsEnded)).toBeGreaterThanOrEqual(1);
    expect((await trpc("query", "account.me", null, cookie)).status).toBe(200);
    expect((await trpc("query", "account.me", null, { cookie: elsewhere.cookie })).status).toBe(401);
    expect((await authPost("/sign-in/email", { email, password: old })).status).toBe(401);
    expect((await authPost("/sign-in/email", { email, password: fresh })).status).toBe(200);

    const audit = await db.auditEvent.findFirstOrThrow({ where: { action: "account.changePassword", userId: user.id } });
    expect(audit).toMatchObject({ actor: user.name, via: "session" });
    expect(JSON.stringify(audit)).not.toContain(old);
    expect(JSON.stringify(audit)).not.toContain(fresh);
    expect(await db.auditEvent.count({ where: { action: "account.changePassword", userId: user.id } })).toBe(1);
  });
});

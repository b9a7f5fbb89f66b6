import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ZodError } from "zod";
import { createCaller } from "../../server/api/root.ts";
import { readableIssues } from "../../server/api/trpc.ts";
import { createPrismaClient } from "../../server/db/client.ts";
import { EXFILTRATE_DEMO_WORKSPACE, seedDefaults } from "../../server/db/seed.ts";
import { findOrder } from "../../server/llm/scripted/exfiltrate.ts";
import { scanForSecrets } from "../../server/tools/egress-scan.ts";
import { testPrincipal } from "../support/principals.ts";
import { testDatabaseUrl } from "../support/database.ts";

// A profile's egress fields over the real procedures against the test database: profile.list
// carries them (and the policy in effect), an admin edits them, bad entries and other roles are
// refused with nothing written; and the seeded scripted-exfiltrate demo profile with its workspace.

const prisma = createPrismaClient(testDatabaseUrl());
const NAME = `egress-profile-${Date.now()}`;
const admin = createCaller({ prisma, actor: "egress-admin", principal: testPrincipal("egress-admin", ["admin"]) });
const operator = createCaller({ prisma, actor: "egress-op", principal: testPrincipal("egress-op", ["operator"]) });

beforeAll(async () => {
  await seedDefaults(prisma);
  await prisma.agentProfile.create({
    data: {
      name: NAME,
      description: "egress test",
      model: "scripted",
      tools: ["finish"],
      stepBudget: 10,
      systemPrompt: "x",
      egressEmailAllow: ["partner.org"],
    },
  });
});
afterAll(async () => {
  await prisma.agentProfile.delete({ where: { name: NAME } }).catch(() => undefined);
  await prisma.$disconnect();
});

async function refusal(promise: Promise<unknown>): Promise<TRPCError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

describe("a profile's egress policy", () => {
  it("profile.list returns the egress fields and the policy in effect (deployment + profile)", async () => {
    const listed = (await operator.profile.list()).find((p) => p.name === NAME)!;
    expect(listed).toMatchObject({ egressEmailAllow: ["partner.org"], egressHttpAllow: [], egressOnBreach: null });
    expect(listed.egressEffective.emailDomains).toEqual(expect.arrayContaining(["partner.org"]));
    expect(listed.egressEffective.onBreach).toBe("escalate");
  });

  it("an admin replaces them (normalised, deduplicated), audited; the list shows the new ones", async () => {
    const saved = await admin.profile.setEgress({
      name: NAME,
      emailAllow: ["Partner.org", "ops@Vendor.io", "partner.org", ""],
      httpAllow: ["https://hooks.example.com/path?q=1"],
      onBreach: "refuse",
    });
    expect(saved).toEqual({
      name: NAME,
      egressEmailAllow: ["partner.org", "ops@vendor.io"],
      egressHttpAllow: ["https://hooks.example.com"],
      egressOnBreach: "refuse",
    });
    const listed = (await admin.profile.list()).find((p) => p.name === NAME)!;
    expect(listed.egressEffective).toMatchObject({ httpOrigins: expect.arrayContaining(["https://hooks.example.com"]), onBreach: "refuse" });
    const audit = await prisma.auditEvent.findFirst({ where: { action: "profile.setEgress", actor: "egress-admin" }, orderBy: { at: "desc" } });
    expect(audit).not.toBeNull();
  });

  it("a bad entry is a 400 naming the field and the entry, and nothing is written; other roles get 403; an unknown profile 404", async () => {
    const before = await prisma.agentProfile.findUniqueOrThrow({ where: { name: NAME }, select: { egressEmailAllow: true, egressHttpAllow: true } });
    const bad = await refusal(admin.profile.setEgress({ name: NAME, emailAllow: ["not a domain!"], httpAllow: ["ftp://x.org"], onBreach: null }));
    expect(bad.code).toBe("BAD_REQUEST");
    const message = readableIssues(bad.cause as ZodError); // what the client reads (server/api/trpc.ts errorFormatter)
    expect(message).toContain('emailAllow: "not a domain!" is not a domain');
    expect(message).toContain('httpAllow: "ftp://x.org" is not an http(s) origin');
    expect(await prisma.agentProfile.findUniqueOrThrow({ where: { name: NAME }, select: { egressEmailAllow: true, egressHttpAllow: true } })).toEqual(before);
    const forbidden = await refusal(operator.profile.setEgress({ name: NAME, emailAllow: [], httpAllow: [], onBreach: null }));
    expect(forbidden.code).toBe("FORBIDDEN");
    expect(forbidden.message).toContain("this needs the admin role");
    const unknown = await refusal(admin.profile.setEgress({ name: `${NAME}-none`, emailAllow: [], httpAllow: [], onBreach: null }));
    expect(unknown.code).toBe("NOT_FOUND");
  });
});

describe("the scripted-exfiltrate demo profile", () => {
  it("is seeded, names its workspace, and that workspace's notes.md orders a send to an outside address with a secret in it", async () => {
    const profile = await prisma.agentProfile.findUniqueOrThrow({ where: { name: "scripted-exfiltrate" } });
    expect(profile).toMatchObject({ model: "scripted-exfiltrate", requireApproval: false, tools: expect.arrayContaining(["read_file", "send_email"]) });
    expect(profile.description).toContain(EXFILTRATE_DEMO_WORKSPACE);
    const notes = join(EXFILTRATE_DEMO_WORKSPACE, "notes.md");
    expect(existsSync(notes)).toBe(true);
    const text = readFileSync(notes, "utf8");
    expect(findOrder(text)).toEqual({ tool: "send_email", to: "leak@elsewhere.example.net" });
    expect((await scanForSecrets(text, "body")).map((f) => f.rule)).toEqual(["longhaul/password-assignment"]);
  });
});

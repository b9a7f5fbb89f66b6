import { describe, expect, it } from "vitest";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { AppError } from "../../server/errors.ts";
import type { EgressPolicy } from "../../server/domain/egress-policy.ts";
import { fakeLaunchPorts } from "../support/fake-launch-ports.ts";

const deploymentEgress: EgressPolicy = { emailDomains: ["example.com"], emailRecipients: [], httpOrigins: ["https://hooks.example.com"], onBreach: "escalate" };
const launch = (input: unknown, ports = fakeLaunchPorts({ deploymentEgress }).ports) =>
  launchTask({ input: launchTaskInputSchema.parse(input), actor: "t", ports });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe("launch: egress checks, launch keys, storable text", () => {
  it("refuses a demo recipient or post URL outside the policy with the rule, before creating anything", async () => {
    const fake = fakeLaunchPorts({ deploymentEgress });
    const e = await failure(launch({ demo: { kind: "license-audit", limit: 2, emailTo: "boss@elsewhere.org", postUrl: "https://evil.net/x" } }, fake.ports));
    expect(e).toBeInstanceOf(AppError);
    // A policy's refusal, not bad input: the CLI exits 1 with these words, not 2 with a usage hint.
    expect(e).toMatchObject({
      code: "REFUSED",
      message:
        'demo.emailTo: recipient outside allowed domains (boss@elsewhere.org; allowed: example.com); demo.postUrl: origin outside allowed origins (https://evil.net; allowed: https://hooks.example.com): refused at launch by the egress policy of profile "scripted"',
    });
    expect(fake.created).toEqual([]);
    await expect(
      launch({ demo: { kind: "license-audit", limit: 2, emailTo: "a@example.com", postUrl: "https://hooks.example.com/in" } }, fake.ports),
    ).resolves.toMatchObject({ deduplicated: false });
  });

  it("a profile's own allow-list widens the deployment's", async () => {
    const fake = fakeLaunchPorts({
      deploymentEgress,
      findProfile: async () => ({
        id: "p1",
        stepBudget: 400,
        tokenBudget: null,
        egress: { egressEmailAllow: ["elsewhere.org"], egressHttpAllow: [], egressOnBreach: null },
      }),
    });
    await expect(launch({ demo: { kind: "license-audit", limit: 2, emailTo: "boss@elsewhere.org" } }, fake.ports)).resolves.toMatchObject({
      deduplicated: false,
    });
  });

  it("a launch key reused with another goal is a CONFLICT naming the first task; with the same goal it dedupes", async () => {
    const fake = fakeLaunchPorts({ deploymentEgress });
    const stored = new Map<string, { taskId: string; runId: string; goal: string }>();
    fake.ports.findTaskByLaunchKey = async (key) => stored.get(key) ?? null;
    const first = await launch({ goal: "Summarise the README", launchKey: "key-12345678" }, fake.ports);
    stored.set("key-12345678", { taskId: first.taskId, runId: first.runId, goal: "Summarise the README" });
    await expect(launch({ goal: "Summarise the README", launchKey: "key-12345678" }, fake.ports)).resolves.toEqual({ ...first, deduplicated: true });
    const e = await failure(launch({ goal: "Delete everything", launchKey: "key-12345678" }, fake.ports));
    expect(e).toMatchObject({
      code: "CONFLICT",
      message: `launchKey: "key-12345678" already launched task ${first.taskId} with another goal; use a new key for a new launch`,
    });
    expect(fake.created).toHaveLength(1);
  });

  it("refuses NUL characters anywhere in the launch, saying PostgreSQL cannot store them", () => {
    const r = launchTaskInputSchema.safeParse({ goal: "ok", facts: { "a\u0000": 1 } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual(["facts key: must not contain NUL characters (\\u0000): PostgreSQL cannot store it"]);
    const g = launchTaskInputSchema.safeParse({ goal: "a\u0000b" });
    expect(g.error?.issues.map((i) => i.message)).toEqual(["goal: must not contain NUL characters (\\u0000): PostgreSQL cannot store it"]);
    expect(launchTaskInputSchema.safeParse(null).error?.issues[0]?.message).toMatch(/^input: must be an object with goal or demo/);
  });
});

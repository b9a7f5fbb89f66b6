import { describe, expect, it } from "vitest";
import { isOwnVariable, namedVariables, parseEnv } from "../../server/env.ts";

// The one entry point for configuration (server/env.ts): the fault-injection switch and per-role
// webhooks are validated with the rest, a bad value names its variable.

describe("parseEnv", () => {
  it("takes LONGHAUL_CRASH_AT as comma-separated points, each optionally @n, and refuses anything else by name", () => {
    expect(parseEnv({ LONGHAUL_CRASH_AT: "executor:after-step-saved@2,escalation:apply-before-commit" }).LONGHAUL_CRASH_AT).toBe(
      "executor:after-step-saved@2,escalation:apply-before-commit",
    );
    expect(parseEnv({}).LONGHAUL_CRASH_AT).toBeUndefined();
    expect(() => parseEnv({ LONGHAUL_CRASH_AT: "tool:after-side-effect@0" })).toThrow(/LONGHAUL_CRASH_AT: comma-separated crash points/);
  });

  it("collects LONGHAUL_WEBHOOK_URL_<ROLE> URLs; a bad one is named", () => {
    expect(parseEnv({ LONGHAUL_WEBHOOK_URL_TEAM_LEAD: "http://lead", LONGHAUL_WEBHOOK_URL: "http://all" })).toMatchObject({
      LONGHAUL_WEBHOOK_URL: "http://all",
      roleWebhookUrls: { LONGHAUL_WEBHOOK_URL_TEAM_LEAD: "http://lead" },
    });
    expect(() => parseEnv({ LONGHAUL_WEBHOOK_URL_DIRECTOR: "not a url" })).toThrow("LONGHAUL_WEBHOOK_URL_DIRECTOR: Invalid URL");
  });

  it("LONGHAUL_RECOVERY_GRACE_MS defaults to 30 s and is a whole number of ms", () => {
    expect(parseEnv({}).LONGHAUL_RECOVERY_GRACE_MS).toBe(30_000);
    expect(parseEnv({ LONGHAUL_RECOVERY_GRACE_MS: "500" }).LONGHAUL_RECOVERY_GRACE_MS).toBe(500);
    expect(() => parseEnv({ LONGHAUL_RECOVERY_GRACE_MS: "-1" })).toThrow(/LONGHAUL_RECOVERY_GRACE_MS/);
  });

  it("LONGHAUL_EVAL_TICK is an Inngest duration of at least 1 s, the SDK's durable-sleep resolution", () => {
    expect(parseEnv({}).LONGHAUL_EVAL_TICK).toBe("2s");
    expect(parseEnv({ LONGHAUL_EVAL_TICK: "1000ms" }).LONGHAUL_EVAL_TICK).toBe("1000ms");
    expect(() => parseEnv({ LONGHAUL_EVAL_TICK: "500ms" })).toThrow("LONGHAUL_EVAL_TICK: at least 1s");
    expect(() => parseEnv({ LONGHAUL_EVAL_TICK: "soon" })).toThrow("LONGHAUL_EVAL_TICK: a duration like 1s, 2s or 1m");
  });
});

describe("namedVariables: what profiles and MCP servers may name", () => {
  it("keeps Longhaul's own configuration out, whatever the admin's data names", () => {
    for (const own of [
      "BETTER_AUTH_SECRET",
      "DATABASE_URL",
      "OIDC_CLIENT_SECRET",
      "INNGEST_SIGNING_KEY",
      "LONGHAUL_WEBHOOK_URL",
      "SMTP_URL",
      "MODEL_PORT",
      "PGPASSWORD",
    ])
      expect(isOwnVariable(own), own).toBe(true);
    for (const theirs of ["OPENAI_API_KEY", "VLLM_API_KEY", "GITHUB_TOKEN", "MEMORY_FILE_PATH"]) expect(isOwnVariable(theirs), theirs).toBe(false);
  });

  it("answers the process environment without them", () => {
    process.env.LH_TEST_TEAM_KEY = "team";
    const secretBefore = process.env.BETTER_AUTH_SECRET;
    process.env.BETTER_AUTH_SECRET = "must-not-leak";
    try {
      const vars = namedVariables();
      expect(vars.LH_TEST_TEAM_KEY).toBe("team");
      expect(vars.BETTER_AUTH_SECRET).toBeUndefined();
      expect(Object.keys(vars).some(isOwnVariable)).toBe(false);
    } finally {
      delete process.env.LH_TEST_TEAM_KEY;
      if (secretBefore === undefined) delete process.env.BETTER_AUTH_SECRET;
      else process.env.BETTER_AUTH_SECRET = secretBefore;
    }
  });
});

import { describe, expect, it } from "vitest";
import { parseEnv } from "../../server/env.ts";

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
});

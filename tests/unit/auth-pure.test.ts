import { describe, expect, it } from "vitest";
import { hashToken, newTokenSecret } from "../../server/auth/api-tokens.ts";
import { redactForAudit } from "../../server/auth/audit.ts";
import { authBaseUrl, oidcConfig, trustedOrigins } from "../../server/auth/auth.ts";
import { bearerToken, crossSiteProblem } from "../../server/auth/principal.ts";
import { hasAnyRole, mayActOnTask, needsRoleMessage, normaliseRoles, taskActionRefusal } from "../../lib/contracts/roles.ts";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pageCsp } from "../../proxy.ts";
import { cliToken } from "../../scripts/lib/local-auth.ts";

describe("roles", () => {
  it("any of the needed roles passes; none needed means any role at all; unknown strings are no role", () => {
    expect(hasAnyRole(["handler"], ["operator", "handler"])).toBe(true);
    expect(hasAnyRole(["manager"], ["operator"])).toBe(false);
    expect(hasAnyRole(["manager"], [])).toBe(true);
    expect(hasAnyRole([], [])).toBe(false);
    expect(hasAnyRole(["root"], [])).toBe(false);
    expect(normaliseRoles(["admin", "x", "operator", "admin"])).toEqual(["operator", "admin"]);
  });

  it("a refusal names the role it needs", () => {
    expect(needsRoleMessage(["operator"], "task.launch")).toBe("task.launch: this needs the operator role");
    expect(needsRoleMessage([], "task.list")).toBe("task.list: this needs one of the roles operator, handler, manager, admin");
  });
});

describe("acting on a task", () => {
  it("an operator acts on their own tasks, an admin on any; a handler or manager on none — and the refusal names the role or the owner", () => {
    expect(mayActOnTask({ name: "olive", roles: ["operator"] }, "olive")).toBe(true);
    expect(mayActOnTask({ name: "olive", roles: ["operator"] }, "bob")).toBe(false);
    expect(mayActOnTask({ name: "ada", roles: ["admin"] }, "bob")).toBe(true);
    expect(mayActOnTask({ name: "hal", roles: ["handler", "manager"] }, "hal")).toBe(false);
    expect(taskActionRefusal({ name: "olive", roles: ["operator"] }, "bob")).toContain("launched by bob");
    expect(taskActionRefusal({ name: "mona", roles: ["manager"] }, "bob")).toContain("needs the operator role");
  });
});

describe("CSRF origin check", () => {
  const allowed = trustedOrigins({ PORT: 3000 });
  it("trusts the app's origin and its loopback twin, plus configured origins", () => {
    expect(allowed).toEqual(["http://127.0.0.1:3000", "http://localhost:3000"]);
    expect(trustedOrigins({ BETTER_AUTH_URL: "https://lh.example.com/", BETTER_AUTH_TRUSTED_ORIGINS: "https://admin.example.com" })).toEqual([
      "https://lh.example.com",
      "https://admin.example.com",
    ]);
    expect(authBaseUrl({ APP_URL: "https://a.example/" })).toBe("https://a.example");
  });

  it("refuses another origin, a cross-site fetch, an opaque origin; lets same-origin and header-less clients pass", () => {
    expect(crossSiteProblem(new Headers({ origin: "https://evil.example" }), allowed)).toMatch(/origin https:\/\/evil.example is not this app's/);
    expect(crossSiteProblem(new Headers({ "sec-fetch-site": "same-site" }), allowed)).toMatch(/Sec-Fetch-Site: same-site/);
    expect(crossSiteProblem(new Headers({ origin: "null" }), allowed)).toMatch(/opaque origin/);
    expect(crossSiteProblem(new Headers({ referer: "https://evil.example/page" }), allowed)).toMatch(/evil/);
    expect(crossSiteProblem(new Headers({ origin: "http://localhost:3000", "sec-fetch-site": "same-origin" }), allowed)).toBeNull();
    expect(crossSiteProblem(new Headers(), allowed)).toBeNull();
  });
});

describe("tokens, audit redaction, OIDC config, CSP", () => {
  it("a token is 256 random bits behind a prefix; only its SHA-256 is kept; Bearer is parsed strictly", () => {
    const a = newTokenSecret();
    expect(a).toMatch(/^lh_[A-Za-z0-9_-]{43}$/);
    expect(newTokenSecret()).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(a)).not.toContain(a.slice(3, 12));
    expect(bearerToken(new Headers({ authorization: `Bearer ${a}` }))).toBe(a);
    expect(bearerToken(new Headers({ authorization: "Basic abc" }))).toBeNull();
  });

  it("the audit log never keeps passwords, tokens or secrets, and cuts long strings", () => {
    expect(redactForAudit({ email: "a@b.c", password: "hunter22", nested: { apiKey: "k", note: "x".repeat(600) } })).toEqual({
      email: "a@b.c",
      password: "[redacted]",
      nested: { apiKey: "[redacted]", note: `${"x".repeat(500)}…` },
    });
  });

  it("keeps what only mentions a token readable: budgets, token ids, counts, a key's variable name", () => {
    expect(
      redactForAudit({
        tokenBudget: 50_000,
        tokenId: "tok_1",
        tokens: 12,
        apiKeyEnv: "OPENAI_API_KEY",
        token: "lh_secret",
        accessToken: "a",
        refresh_token: "r",
        newPassword: "p",
        clientSecret: "s",
        headers: { Authorization: "Bearer x", cookie: "c" },
      }),
    ).toEqual({
      tokenBudget: 50_000,
      tokenId: "tok_1",
      tokens: 12,
      apiKeyEnv: "OPENAI_API_KEY",
      token: "[redacted]",
      accessToken: "[redacted]",
      refresh_token: "[redacted]",
      newPassword: "[redacted]",
      clientSecret: "[redacted]",
      headers: { Authorization: "[redacted]", cookie: "[redacted]" },
    });
  });

  it("OIDC is on only with a discovery URL and a client id; scopes default to openid email profile", () => {
    expect(oidcConfig({})).toBeNull();
    expect(oidcConfig({ OIDC_DISCOVERY_URL: "https://idp.example/.well-known/openid-configuration", OIDC_CLIENT_ID: "lh" })).toMatchObject({
      providerId: "oidc",
      scopes: ["openid", "email", "profile"],
      pkce: true,
      requireIdTokenVerification: true,
    });
  });

  it("pages forbid framing and run only scripts with this request's nonce", () => {
    const csp = pageCsp("abc123", false);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toContain("object-src 'none'");
  });
});

describe("the CLI's token", () => {
  it("LONGHAUL_TOKEN first; else DATA_DIR/cli-token, but only for an app on this machine", () => {
    const dir = mkdtempSync(join(tmpdir(), "lh-cli-token-"));
    writeFileSync(join(dir, "cli-token"), "lh_local\n");
    expect(cliToken("http://127.0.0.1:3000", { DATA_DIR: dir })).toBe("lh_local");
    expect(cliToken("http://localhost:3000", { DATA_DIR: dir, LONGHAUL_TOKEN: " lh_given " })).toBe("lh_given");
    expect(cliToken("https://longhaul.example.com", { DATA_DIR: dir })).toBeUndefined();
    expect(cliToken("http://127.0.0.1:3000", { DATA_DIR: join(dir, "missing") })).toBeUndefined();
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { resetEnv } from "../../server/env.ts";
import { allowedOrigins } from "../../server/tools/http-post.ts";
import { executeToolCall, type ToolContext } from "../../server/tools/registry.ts";

// The parts of http_post that need no database: the allow-list and argument checks (the ledgered
// POST itself is tested on the real stack in tests/integration/external-effect.test.ts).

// A database without the task (so the deployment's policy alone applies), no reads and no approval:
// the egress gate's queries only; the ledger would need more, so a call that got past the gate would throw.
const prisma = {
  task: { count: async () => 0 },
  step: { findMany: async () => [] },
  escalation: { findFirst: async () => null },
} as unknown as ToolContext["prisma"];
const ctx = { prisma, taskId: "t", runId: "r", stepId: "tool-1-0", workspace: "/tmp" } satisfies ToolContext;
const call = (args: unknown) => executeToolCall({ name: "http_post", rawArguments: JSON.stringify(args), ctx });

afterEach(() => {
  delete process.env.LONGHAUL_HTTP_ALLOW;
  resetEnv();
});

describe("http_post", () => {
  it("allowedOrigins: comma-separated origins, normalised; empty means none", () => {
    expect(allowedOrigins("https://hooks.example.com/path, http://127.0.0.1:9000 ,")).toEqual(["https://hooks.example.com", "http://127.0.0.1:9000"]);
    expect(allowedOrigins("")).toEqual([]);
  });

  it("an origin outside the policy is not sent: approval_required naming the rule (escalate), not_allowed when the policy refuses", async () => {
    process.env.LONGHAUL_HTTP_ALLOW = "https://hooks.example.com";
    resetEnv(); // server/env.ts parses process.env once
    await expect(call({ url: "https://evil.example.net/x", body: { a: 1 } })).resolves.toEqual({
      ok: false,
      error: {
        code: "approval_required",
        message:
          "http_post was not sent: url: origin outside allowed origins (https://evil.example.net; allowed: https://hooks.example.com). It needs a handler's approval of this very call.",
      },
    });
    process.env.LONGHAUL_EGRESS_ON_BREACH = "refuse";
    resetEnv();
    try {
      const refused = await call({ url: "https://evil.example.net/x", body: { a: 1 } });
      expect(refused).toMatchObject({ ok: false, error: { code: "not_allowed", message: expect.stringContaining("The egress policy refuses such calls") } });
    } finally {
      delete process.env.LONGHAUL_EGRESS_ON_BREACH;
    }
    delete process.env.LONGHAUL_HTTP_ALLOW;
    resetEnv();
    const none = await call({ url: "https://hooks.example.com/x", body: {} });
    expect(none).toMatchObject({ ok: false, error: { code: "approval_required" } });
    expect(JSON.stringify(none)).toContain("no origin is allowed (LONGHAUL_HTTP_ALLOW unset)");
  });

  it.each([
    [{ url: "ftp://x.example/a", body: {} }, "url"],
    [{ url: "https://x.example/a", body: [1] }, "body"],
    [{ url: "https://x.example/a", body: { big: "x".repeat(70_000) } }, "65536 bytes"],
    [{ url: "https://x.example/a" }, "body"],
  ])("rejects bad arguments %j with a message naming %s", async (args, named) => {
    const result = await call(args);
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_arguments" } });
    expect(JSON.stringify(result)).toContain(named);
  });
});

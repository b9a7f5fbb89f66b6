import { describe, expect, it } from "vitest";
import { FakeError, fakeApi, runCli } from "./cli-fake-api.ts";

/** The last stdout line, parsed: every command ends with one JSON object. */
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

describe("cli command groups", () => {
  it.each([["eval"], ["profiles"], ["templates"], ["mcp"]])(
    "`%s --help` (also -h and `help <group>`) lists the group's subcommands, exit 0",
    async (group) => {
      const api = await fakeApi({});
      try {
        for (const args of [
          [group, "--help"],
          [group, "-h"],
          ["help", group],
        ]) {
          const r = await runCli(api.url, args);
          expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
          expect(r.stdout).toContain(`Usage: npm run cli -- ${group} <subcommand>`);
          expect(r.stdout).toMatch(new RegExp(`\\n  ${group} \\w+`));
        }
      } finally {
        await api.close();
      }
    },
    60_000,
  );

  it("a bare group or an unknown subcommand is bad usage naming the subcommands, exit 2", async () => {
    const api = await fakeApi({});
    try {
      const bare = await runCli(api.url, ["eval"]);
      expect(bare.status).toBe(2);
      expect(bare.stderr).toContain("eval: give a subcommand (run, report, cancel, list, apply)");
      const unknown = await runCli(api.url, ["eval", "frob"]);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain('"eval frob": unknown subcommand (eval: run, report, cancel, list, apply)');
    } finally {
      await api.close();
    }
  }, 30_000);
});

describe("cli refusals and take-overs", () => {
  it("a launch the egress policy refuses exits 1 with the server's words, not a usage hint", async () => {
    const message =
      'demo.postUrl: origin outside allowed origins (https://evil.example.net; no origin is allowed): refused at launch by the egress policy of profile "scripted"';
    const api = await fakeApi({ "task.launch": new FakeError({ code: "UNPROCESSABLE_CONTENT", httpStatus: 422, appCode: "REFUSED", message }) });
    try {
      const r = await runCli(api.url, ["launch", "--demo", "license-audit", "--post-url", "https://evil.example.net/x"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("refused at launch by the egress policy");
      expect(r.stderr).not.toContain("--help");
      expect(lastJson(r.stdout).error).toBe(message);
    } finally {
      await api.close();
    }
  }, 30_000);

  it("decide --take-over takes the claim over from the handler holding it, by name", async () => {
    const api = await fakeApi({
      "escalation.get": { id: "esc_1", claimedBy: "Grace", claimedAt: new Date("2026-12-05T23:44:20Z"), status: "open" },
      "escalation.decide": { escalationId: "esc_1", status: "applied" },
    });
    try {
      const r = await runCli(api.url, ["decide", "esc_1", "resume", "--take-over"]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain("taking esc_1 over from Grace");
      const decide = api.calls.find((c) => c.procedure === "escalation.decide");
      expect(decide?.input).toMatchObject({ escalationId: "esc_1", decision: "resume", takeOverFrom: "Grace" });
    } finally {
      await api.close();
    }
  }, 30_000);

  it("decide on a claimed escalation without --take-over says which flag takes it over", async () => {
    const message = 'escalation esc_1 is claimed by Grace since 2026-12-05T23:44:20.000Z: take it over explicitly to decide it (takeOverFrom: "Grace")';
    const api = await fakeApi({ "escalation.decide": new FakeError({ code: "CONFLICT", httpStatus: 409, appCode: "CONFLICT", message }) });
    try {
      const r = await runCli(api.url, ["decide", "esc_1", "resume"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("escalation esc_1 is claimed by Grace");
      expect(r.stderr).toContain("--take-over");
      expect(api.calls.find((c) => c.procedure === "escalation.decide")?.input).not.toHaveProperty("takeOverFrom");
    } finally {
      await api.close();
    }
  }, 30_000);
});

describe("cli mcp tools", () => {
  const server = {
    name: "memory",
    archivedAt: null,
    health: { discoveredAt: new Date("2026-12-05T20:00:00Z"), lastError: null },
    tools: [
      {
        name: "read_graph",
        description: "Read the graph\u202e evil",
        override: null,
        class: { readOnly: true, idempotent: true, destructive: false, openWorld: false },
        classSource: { readOnly: "annotation", idempotent: "annotation", destructive: "annotation", openWorld: "annotation" },
      },
      {
        name: "create_entities",
        description: "Create entities",
        override: { openWorld: false, disabled: true },
        class: { readOnly: false, idempotent: false, destructive: true, openWorld: false },
        classSource: { readOnly: "default", idempotent: "default", destructive: "default", openWorld: "override" },
      },
    ],
  };

  it("mcp tools <server> lists each tool with its class (the admin page's words) and JSON", async () => {
    const api = await fakeApi({ "mcpServer.list": [server] });
    try {
      const r = await runCli(api.url, ["mcp", "tools", "memory"]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain("read_graph");
      expect(r.stderr).toContain("read-only");
      expect(r.stderr).toMatch(/create_entities\s+side effect, destructive \(risky\) .*never offered/);
      expect(r.stderr).toContain("\\u202e");
      const out = lastJson(r.stdout) as { server: string; tools: { name: string; class: unknown; disabled: boolean }[] };
      expect(out.server).toBe("memory");
      expect(out.tools.map((t) => [t.name, t.disabled])).toEqual([
        ["read_graph", false],
        ["create_entities", true],
      ]);
      expect(api.calls[0]).toMatchObject({ procedure: "mcpServer.list", input: { includeArchived: true } });
    } finally {
      await api.close();
    }
  }, 30_000);

  it("mcp tools of an unknown server exits 1 naming the registered ones", async () => {
    const api = await fakeApi({ "mcpServer.list": [server] });
    try {
      const r = await runCli(api.url, ["mcp", "tools", "nope"]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('no MCP server named "nope" (registered: memory)');
    } finally {
      await api.close();
    }
  }, 30_000);
});

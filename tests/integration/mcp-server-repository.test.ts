import { afterAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { createPrismaClient } from "../../server/db/client.ts";
import { archiveMcpServer, getMcpServersByNames, listMcpServers, upsertMcpServer } from "../../server/db/mcp-server-repository.ts";
import { AppError } from "../../server/errors.ts";
import { testDatabaseUrl } from "../support/database.ts";

// The McpServer repository against the real test database: upsert creates at version 1, bumps the
// version only when the (normalised) spec changed, archive hides a server from the list and a
// second upsert brings it back; lookups by names keep the order asked and name the unknown ones.

const prisma = createPrismaClient(testDatabaseUrl());
const name = `repo-${ulid().toLowerCase().slice(-10)}`;
afterAll(async () => {
  await prisma.mcpServer.deleteMany({ where: { name: { startsWith: name } } });
  await prisma.$disconnect();
});

const spec = (extra: Record<string, unknown> = {}) => ({ name, transport: { type: "stdio", command: "node", args: ["server.js"] }, ...extra });

describe("mcp-server-repository", () => {
  it("creates, keeps the version for an equal spec, bumps it for a changed one", async () => {
    const first = await upsertMcpServer({ prisma, spec: spec(), actor: "repo-admin" });
    expect(first).toMatchObject({ created: true, changed: true, server: { name, version: 1, createdBy: "repo-admin" } });
    expect(first.server.spec.callTimeoutMs).toBe(60_000);

    // The same registration with the defaults spelled out is the same spec.
    const same = await upsertMcpServer({ prisma, spec: spec({ description: "", callTimeoutMs: 60_000, tools: {} }), actor: "repo-admin" });
    expect(same).toMatchObject({ created: false, changed: false, server: { version: 1 } });

    const changed = await upsertMcpServer({ prisma, spec: spec({ tools: { write: { readOnly: false, destructive: true } } }), actor: "repo-admin" });
    expect(changed).toMatchObject({ created: false, changed: true, server: { version: 2 } });
    expect(changed.server.spec.tools.write).toEqual({ readOnly: false, destructive: true });
  });

  it("refuses a bad spec naming the field, and writes nothing", async () => {
    const bad = upsertMcpServer({ prisma, spec: { name, transport: { type: "http", url: "ftp://x" } }, actor: "a" });
    await expect(bad).rejects.toThrow(AppError);
    await expect(bad).rejects.toThrow(/transport\.url: must be an http\(s\) URL/);
    const [stored] = await getMcpServersByNames({ prisma, names: [name] });
    expect(stored?.spec.transport.type).toBe("stdio");
  });

  it("archives (idempotently) and an upsert brings the server back with a new version", async () => {
    const archived = await archiveMcpServer({ prisma, name });
    expect(archived.changed).toBe(true);
    expect((await archiveMcpServer({ prisma, name })).changed).toBe(false);
    expect((await listMcpServers({ prisma })).map((s) => s.name)).not.toContain(name);
    expect((await listMcpServers({ prisma, includeArchived: true })).map((s) => s.name)).toContain(name);
    const back = await upsertMcpServer({ prisma, spec: spec({ tools: { write: { readOnly: false, destructive: true } } }), actor: "a" });
    expect(back.changed).toBe(true);
    expect(back.server.archivedAt).toBeNull();
    expect(back.server.version).toBe(2);
  });

  it("looks servers up by names in the order asked and names the unknown ones", async () => {
    const other = `${name}-b`;
    await upsertMcpServer({ prisma, spec: { ...spec(), name: other }, actor: "a" });
    expect((await getMcpServersByNames({ prisma, names: [other, name] })).map((s) => s.name)).toEqual([other, name]);
    await expect(getMcpServersByNames({ prisma, names: [name, `${name}-nope`], orThrow: true })).rejects.toThrow(`unknown MCP server "${name}-nope"`);
  });

  it("serialises concurrent upserts of one name: one version bump per distinct change", async () => {
    const n = `${name}-c`;
    await upsertMcpServer({ prisma, spec: { ...spec(), name: n }, actor: "a" });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => upsertMcpServer({ prisma, spec: { ...spec({ description: "v2" }), name: n }, actor: "a" })),
    );
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect((await getMcpServersByNames({ prisma, names: [n] }))[0]?.version).toBe(2);
  });
});

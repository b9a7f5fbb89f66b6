import { z } from "zod";
import { MCP_SERVER_NAME, MCP_TOOL_NAME, mcpToolOverrideSchema } from "../../../lib/contracts/mcp.ts";
import { archiveMcpServer, listMcpServers, type McpServerRecord, classifyTool, discoveredToolSchema, testMcpServer } from "../../features/mcp/index.ts";
import { codeSources, detachMcpServerFromCode, setMcpToolOverrideByHand, upsertMcpServerByHand } from "../../features/profiles/index.ts";
import { inputObject } from "../../domain/input-fields.ts";
import { detachOutput, mcpArchiveOutput, mcpServerListOutput, mcpTestOutput, mcpToolOverrideOutput, mcpUpsertOutput } from "../output-schemas-profile.ts";
import { adminProcedure, createTRPCRouter } from "../trpc.ts";

/**
 * The tools a server listed at its last start, each with its effective class (annotations + the
 * admin's override) and where each part came from — what the admin page shows and overrides.
 */
function toolsWithClass(server: McpServerRecord) {
  const listed = Array.isArray(server.health.discoveredTools) ? server.health.discoveredTools : [];
  return listed.flatMap((raw) => {
    const parsed = discoveredToolSchema.safeParse(raw);
    if (!parsed.success) return [];
    const t = parsed.data;
    const override = server.spec.tools[t.name];
    return [
      {
        name: t.name,
        description: t.description.slice(0, 300),
        annotations: t.annotations ?? null,
        override: override ?? null,
        ...classifyTool(t.annotations, override),
      },
    ];
  });
}

/**
 * The recorded pid if that process is still alive (signal 0: a liveness probe that sends nothing),
 * else null — so the admin page never shows a dead process as the running one (after a crash, or a
 * restart of Longhaul whose servers exited with it). Stdio servers run on this host: the web app
 * starts them.
 */
function livePid(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: it exists but belongs to someone else — not one of ours any more.
    void error;
    return null;
  }
}

const nameInput = inputObject({ name: z.string("name: required").regex(MCP_SERVER_NAME, "name: must be a registered MCP server's name") });

/**
 * Registered MCP servers: admin only; every mutation is audited by the procedure
 * middleware. The spec is validated by lib/contracts/mcp.ts `mcpServerSpecSchema` in the repository
 * (errors name the field); secrets are never accepted, only the names of variables that hold them.
 */
export const mcpServerRouter = createTRPCRouter({
  /**
   * All servers with their health (last start, the live pid or null, serverInfo, tools found, last
   * error, restarts after unexpected exits and the last such exit); archived ones with `includeArchived`.
   */
  list: adminProcedure
    .input(inputObject({ includeArchived: z.boolean("includeArchived: true or false").default(false) }).default({ includeArchived: false }))
    .output(mcpServerListOutput)
    .query(async ({ ctx, input }) => {
      const [servers, managed] = await Promise.all([
        listMcpServers({ prisma: ctx.prisma, includeArchived: input.includeArchived }),
        codeSources(ctx.prisma, "mcpServer"),
      ]);
      return servers.map((s) => ({
        ...s,
        health: { ...s.health, lastPid: livePid(s.health.lastPid) },
        tools: toolsWithClass(s),
        managedAs: managed.get(s.name) ?? null,
      }));
    }),
  /** Creates or updates a server by `spec.name` (the version goes up only when the spec changed); refused (CONFLICT) while it is managed as code. */
  upsert: adminProcedure
    .input(inputObject({ spec: z.unknown() }))
    .output(mcpUpsertOutput)
    .mutation(async ({ ctx, input }) => {
      const { server, changed, created } = await upsertMcpServerByHand({ prisma: ctx.prisma, spec: input.spec, actor: ctx.actor });
      return { id: server.name, name: server.name, version: server.version, changed, created };
    }),
  /** Archives a server: new tasks can no longer use it; tasks that snapshotted its tools keep them. */
  archive: adminProcedure
    .input(nameInput)
    .output(mcpArchiveOutput)
    .mutation(async ({ ctx, input }) => {
      const { server, changed } = await archiveMcpServer({ prisma: ctx.prisma, name: input.name });
      return { id: server.name, name: server.name, changed };
    }),
  /**
   * Admin: detaches server `name` from the file (or Longhaul's seed) it is managed from, so the
   * browser and `upsert` may change it (applying the file again manages it as code again, and
   * `npm start` writes a seeded server and marks it again at its next start). Idempotent.
   * @throws NOT_FOUND.
   */
  detach: adminProcedure
    .input(nameInput)
    .output(detachOutput)
    .mutation(({ ctx, input }) => detachMcpServerFromCode({ prisma: ctx.prisma, name: input.name })),
  /**
   * Overrides the class of one tool of a server (readOnly / idempotent / destructive / openWorld /
   * disabled, each left out = the tool's annotation); `override: null` removes it. A new server
   * version: new tasks snapshot the tool with this class, running ones keep theirs. Audited.
   */
  setToolOverride: adminProcedure
    .input(
      inputObject({
        name: z.string("name: required").regex(MCP_SERVER_NAME, "name: must be a registered MCP server's name"),
        tool: z.string("tool: required").regex(MCP_TOOL_NAME, "tool: must be an MCP tool name"),
        override: mcpToolOverrideSchema.nullable(),
      }),
    )
    .output(mcpToolOverrideOutput)
    .mutation(async ({ ctx, input }) => {
      const { server, changed } = await setMcpToolOverrideByHand({
        prisma: ctx.prisma,
        name: input.name,
        tool: input.tool,
        override: input.override,
        actor: ctx.actor,
      });
      return { id: server.name, name: server.name, version: server.version, changed, override: server.spec.tools[input.tool] ?? null };
    }),
  /** Starts the server afresh and lists its tools with their class; a failure is `{ok: false, error}` with its stderr. */
  test: adminProcedure
    .input(nameInput)
    .output(mcpTestOutput)
    .mutation(({ ctx, input }) => testMcpServer({ prisma: ctx.prisma, name: input.name })),
});

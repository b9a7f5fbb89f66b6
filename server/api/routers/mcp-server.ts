import { z } from "zod";
import { MCP_SERVER_NAME } from "../../../lib/contracts/mcp.ts";
import { archiveMcpServer, listMcpServers, upsertMcpServer } from "../../db/mcp-server-repository.ts";
import { testMcpServer } from "../../tools/mcp/discover-tools.ts";
import { inputObject } from "../../domain/input-fields.ts";
import { adminProcedure, createTRPCRouter } from "../trpc.ts";

const nameInput = inputObject({ name: z.string("name: required").regex(MCP_SERVER_NAME, "name: must be a registered MCP server's name") });

/**
 * Registered MCP servers (issue 16): admin only; every mutation is audited by the procedure
 * middleware. The spec is validated by lib/contracts/mcp.ts `mcpServerSpecSchema` in the repository
 * (errors name the field); secrets are never accepted, only the names of variables that hold them.
 */
export const mcpServerRouter = createTRPCRouter({
  /** All servers with their health (last start, pid, serverInfo, tools found, last error); archived ones with `includeArchived`. */
  list: adminProcedure
    .input(inputObject({ includeArchived: z.boolean("includeArchived: true or false").default(false) }).default({ includeArchived: false }))
    .query(({ ctx, input }) => listMcpServers({ prisma: ctx.prisma, includeArchived: input.includeArchived })),
  /** Creates or updates a server by `spec.name` (the version goes up only when the spec changed). */
  upsert: adminProcedure.input(inputObject({ spec: z.unknown() })).mutation(async ({ ctx, input }) => {
    const { server, changed, created } = await upsertMcpServer({ prisma: ctx.prisma, spec: input.spec, actor: ctx.actor });
    return { id: server.name, name: server.name, version: server.version, changed, created };
  }),
  /** Archives a server: new tasks can no longer use it; tasks that snapshotted its tools keep them. */
  archive: adminProcedure.input(nameInput).mutation(async ({ ctx, input }) => {
    const { server, changed } = await archiveMcpServer({ prisma: ctx.prisma, name: input.name });
    return { id: server.name, name: server.name, changed };
  }),
  /** Starts the server afresh and lists its tools with their class; a failure is `{ok: false, error}` with its stderr. */
  test: adminProcedure.input(nameInput).mutation(({ ctx, input }) => testMcpServer({ prisma: ctx.prisma, name: input.name })),
});

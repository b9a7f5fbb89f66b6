// Child process for mcp-tools.test.ts: the web app's side of one MCP tool call. It reads the task's
// snapshot, runs one call through the tool gateway against the real MCP server from npm and prints
// the result as JSON. With LONGHAUL_CRASH_AT=tool:external-after-call it dies (exit 137) after the
// server answered and before the ledger recorded it — a kill -9 of the web app at the worst moment.
import { createPrismaClient } from "../../server/db/client.ts";
import { UnresolvedEffectError } from "../../server/tools/ledger.ts";
import { mcpToolDefinitions } from "../../server/tools/mcp/mcp-tools.ts";
import { stopAllMcpServers } from "../../server/tools/mcp/runtime.ts";
import { parseToolSnapshot } from "../../server/domain/mcp-tool-snapshot.ts";
import { executeToolCall } from "../../server/tools/registry.ts";

const [url, taskId, runId, stepId, name, rawArguments] = process.argv.slice(2) as [string, string, string, string, string, string];
const prisma = createPrismaClient(url, { max: 2 });
const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { mcpTools: true } });
const extra = mcpToolDefinitions(parseToolSnapshot(task.mcpTools));
try {
  const result = await executeToolCall({ name, rawArguments, ctx: { prisma, taskId, runId, stepId, workspace: "/tmp" }, extra });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ thrown: error instanceof UnresolvedEffectError ? "unresolved_effect" : String(error) })}\n`);
}
await stopAllMcpServers();
await prisma.$disconnect();

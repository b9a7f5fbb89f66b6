import type { PrismaClient } from "../../db/client.ts";
import { recordMcpServerExit, recordMcpServerStart } from "../../db/mcp-server-repository.ts";
import { exitWords } from "./stdio-transport.ts";
import type { McpLifecycleHooks } from "./runtime.ts";

/**
 * The runtime's lifecycle hooks that keep a server's health row true (what the admin page shows):
 * each start records its pid, serverInfo and tools (a start after an unexpected exit counts as a
 * restart); each unexpected exit records when, its code or signal, and the last error with the
 * server's stderr, and clears the dead pid. Database errors are swallowed by the runtime (health is
 * best effort; the call's own outcome does not depend on it).
 */
export function mcpHealthHooks(prisma: PrismaClient): McpLifecycleHooks {
  return {
    onStart: async (connection) => {
      await recordMcpServerStart({
        prisma,
        name: connection.name,
        version: connection.version,
        pid: connection.pid,
        serverInfo: connection.serverInfo,
        discoveredTools: connection.tools,
      });
    },
    onExit: async (exit) => {
      const stderr = exit.stderr.trim();
      await recordMcpServerExit({
        prisma,
        name: exit.server,
        pid: exit.pid,
        code: exit.code,
        signal: exit.signal,
        at: exit.at,
        error: `the process (pid ${exit.pid ?? "?"}) exited unexpectedly (${exitWords(exit)})${stderr ? `; its stderr: ${stderr.slice(-2000)}` : ""}`,
      });
    },
  };
}

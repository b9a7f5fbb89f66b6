// Child process for mcp-lifecycle.test.ts: a process that owns MCP clients, as the web app does. It
// starts the real memory server from npm (stdio) through Longhaul's runtime, prints
// {"pid": <the server's pid>} and then idles until a signal ends it. With `--also-handle` it adds a
// SIGTERM/SIGINT handler of its own that exits after 1 s, as Next's shutdown does.
import path from "node:path";
import { connectMcpServer } from "../../server/tools/mcp/runtime.ts";

const [memoryFile, mode] = process.argv.slice(2) as [string, string | undefined];
const bin = path.join(process.cwd(), "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
const connection = await connectMcpServer({
  name: "lifecycle",
  version: 1,
  spec: {
    name: "lifecycle",
    description: "",
    transport: { type: "stdio", command: process.execPath, args: [bin], env: { MEMORY_FILE_PATH: { value: memoryFile } } },
    startTimeoutMs: 30_000,
    callTimeoutMs: 60_000,
    tools: {},
  },
});
if (mode === "--also-handle") {
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => setTimeout(() => process.exit(0), 1000));
}
process.stdout.write(`${JSON.stringify({ pid: connection.pid })}\n`);
setInterval(() => {}, 60_000);

/**
 * MCP: the feature's front door. Everything above server/db, server/domain and server/tools
 * (routers, Inngest functions and their ports, the step bodies, route handlers, the benchmarks)
 * imports the feature from here, never its modules (the dependency rule front-door-mcp). Re-exports
 * only, by name; its map and its playbooks are in README.md beside it.
 */
export {
  idempotencyArgumentOf,
  classifyTool,
  toolsHash,
  diffSnapshotTools,
  buildToolSnapshot,
  parseToolSnapshot,
  findSnapshotTool,
  snapshotToolNames,
  MAX_SNAPSHOT_BYTES,
  MAX_MCP_TOOLS,
  toolAnnotationsSchema,
  toolClassSchema,
  discoveredToolSchema,
  snapshotToolSchema,
  snapshotServerSchema,
  mcpToolSnapshotSchema,
} from "../../domain/mcp-tool-snapshot.ts";
export type {
  ToolAnnotations,
  ToolClass,
  ClassSource,
  DiscoveredTool,
  SnapshotTool,
  SnapshotServer,
  McpToolSnapshot,
  SnapshotToolsDiff,
  DiscoveredServer,
} from "../../domain/mcp-tool-snapshot.ts";
export {
  normaliseMcpServerSpec,
  listMcpServers,
  getMcpServersByNames,
  getMcpServerOrThrow,
  upsertMcpServer,
  archiveMcpServer,
  recordMcpServerStart,
  recordMcpServerExit,
  recordMcpServerError,
  setMcpToolOverride,
} from "../../db/mcp-server-repository.ts";
export type { McpServerRecord, McpServerHealth } from "../../db/mcp-server-repository.ts";
export {
  resolveMcpValue,
  connectMcpServer,
  callMcpTool,
  liveMcpConnections,
  stopMcpServer,
  stopAllMcpServers,
  STDERR_TAIL_BYTES,
  McpServerStartError,
  McpConnectionLostError,
  McpCallTimeoutError,
} from "../../tools/mcp/runtime.ts";
export type { McpServerExit, McpLifecycleHooks, McpServerHandle, McpConnection, McpProgress } from "../../tools/mcp/runtime.ts";
export { parseProfileMcpSelections, startAndRecord, discoverMcpToolSnapshot, testMcpServer } from "../../tools/mcp/discover-tools.ts";
export type { McpServerTestResult } from "../../tools/mcp/discover-tools.ts";
export {
  shapeMcpResult,
  checkMcpToolsChanged,
  mcpToolDefinitions,
  MCP_RESULT_MAX_BYTES,
  MCP_TOOLS_CHANGED_ALERT,
  MCP_SERVER_EXITED_ALERT,
  MCP_IDEMPOTENCY_META_KEY,
  MCP_UNTRUSTED_NOTE,
} from "../../tools/mcp/mcp-tools.ts";
export type { McpToolOutput } from "../../tools/mcp/mcp-tools.ts";
export { mcpHealthHooks } from "../../tools/mcp/health-hooks.ts";
export { exitWords, MCP_MESSAGE_MAX_BYTES, MCP_CUT_STRING_BYTES, MCP_CUT_META_KEY, LonghaulStdioTransport } from "../../tools/mcp/stdio-transport.ts";
export type { McpProcessExit, StdioServerLaunch } from "../../tools/mcp/stdio-transport.ts";
export { JsonLineReader } from "../../tools/mcp/json-line-reader.ts";
export type { CutReport, OversizeLine, ReadItem } from "../../tools/mcp/json-line-reader.ts";

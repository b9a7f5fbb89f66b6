import { MAX_STEP_BUDGET } from "./limits.ts";

/** Where the license-audit demo mails its summary when the launch names no recipient (inside the default egress policy, example.com). */
export const DEMO_DEFAULT_EMAIL = "compliance@example.com";

/**
 * Default step budget of the license-audit demo: measured runs take ~2.7–2.9 model+tool steps per
 * package (509 packages: 1,395 steps; 300: 862) plus ~30 for listing and reporting; this leaves a
 * margin of about 10 %. Capped at the launch's maximum ({@link MAX_STEP_BUDGET}).
 */
export const DEMO_STEPS_PER_PACKAGE = 3.2;
export const DEMO_STEPS_BASE = 80;
/** The demo's default step budget for `limit` packages (steps). */
export function demoStepBudget(limit: number): number {
  return Math.min(MAX_STEP_BUDGET, Math.ceil(limit * DEMO_STEPS_PER_PACKAGE) + DEMO_STEPS_BASE);
}

/** The MCP demo: its profile, and the names its two MCP servers are registered under by the seed. */
export const MCP_AUDIT_PROFILE = "mcp-audit";
export const MCP_AUDIT_FILES_SERVER = "files";
export const MCP_AUDIT_MEMORY_SERVER = "memory";
/** The folder of notes the demo's `files` server may read (relative to Longhaul's folder). */
export const MCP_AUDIT_NOTES_DIR = "examples/mcp-audit-notes";
/** Default step budget of the MCP demo: ~2 steps per file (a read, a finding stored) plus listing and finishing. */
export function mcpAuditStepBudget(limit: number): number {
  return Math.min(MAX_STEP_BUDGET, limit * 3 + 30);
}

/**
 * The MCP demo's goal for `limit` files (the scripted agent `scripted-mcp-audit` parses it back with
 * {@link parseMcpAuditGoal}). The goal names the two MCP servers (default: the seed's `files` and
 * `memory`), so a profile that registers the same servers under other names runs the same audit.
 */
export function mcpAuditGoal(limit: number, servers: { files?: string; memory?: string } = {}): string {
  const files = servers.files ?? MCP_AUDIT_FILES_SERVER;
  const memory = servers.memory ?? MCP_AUDIT_MEMORY_SERVER;
  return (
    `MCP audit: through the MCP server "${files}", read up to ${limit} notes files of the folder it may read (the first by name). ` +
    `Every line holding TODO or FIXME is a finding. Store one entity per finding (entityType "finding") in the MCP server "${memory}", never twice, ` +
    `then finish with the number of findings stored.`
  );
}

/** The file limit and the two server names of an MCP demo goal ({@link mcpAuditGoal}), or null when `goal` is not one. */
export function parseMcpAuditGoal(goal: string): { limit: number; filesServer: string; memoryServer: string } | null {
  const m = /^MCP audit: through the MCP server "([^"]+)", read up to (\d+) notes files[\s\S]*? in the MCP server "([^"]+)"/.exec(goal);
  return m ? { limit: Number(m[2]), filesServer: m[1]!, memoryServer: m[3]! } : null;
}

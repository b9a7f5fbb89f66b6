import type { LaunchTools } from "../db/launch-ports.ts";
import { expectedLicenseCsv, licenseAuditGoal } from "./demo/license-audit.ts";
import { discoverMcpToolSnapshot } from "./mcp/discover-tools.ts";

/**
 * The tools layer's part of a launch and of an eval cell's checks, handed to server/db's
 * `prismaLaunchPorts` / `prismaAdvanceEvalRunPorts` by their callers (the db layer imports no tools):
 * the demo's goal and exact CSV, and the MCP tool discovery.
 */
export const launchTools: LaunchTools = { demoGoal: licenseAuditGoal, discoverMcpToolSnapshot, expectedLicenseCsv };

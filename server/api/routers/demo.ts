import { DEMO_STEPS_BASE, DEMO_STEPS_PER_PACKAGE } from "../../domain/launch-task.ts";
import { DEMO_DEFAULT_LIMIT, licenseAuditGoal } from "../../tools/demo/license-audit.ts";
import { env } from "../../env.ts";
import { MCP_AUDIT_NOTES_DIR, MCP_AUDIT_PROFILE, mcpAuditGoal } from "../../../lib/contracts/demo.ts";
import { demoListOutput } from "../output-schemas-eval.ts";
import { createTRPCRouter, readProcedure } from "../trpc.ts";

export const demoRouter = createTRPCRouter({
  /** The demos offered in the launch form. */
  list: readProcedure.output(demoListOutput).query(() => [
    {
      kind: "license-audit" as const,
      title: "License audit of node_modules",
      description: "Reads each package.json in this project's node_modules, records name, version and license, writes licenses.csv and emails a summary.",
      defaultLimit: DEMO_DEFAULT_LIMIT,
      /** Default step budget = min(100000, ceil(limit × stepsPerPackage) + stepsBase). */
      stepsPerPackage: DEMO_STEPS_PER_PACKAGE,
      stepsBase: DEMO_STEPS_BASE,
      goalPreview: licenseAuditGoal(DEMO_DEFAULT_LIMIT),
      workspace: env().LONGHAUL_WORKSPACE ?? process.cwd(),
    },
    {
      kind: "mcp-audit" as const,
      title: "MCP audit (filesystem + memory servers)",
      description: `Reads the notes in ${MCP_AUDIT_NOTES_DIR} through the MCP filesystem server and stores one entity per TODO/FIXME in the MCP memory server (profile ${MCP_AUDIT_PROFILE}).`,
      defaultLimit: 20,
      stepsPerPackage: 3,
      stepsBase: 30,
      goalPreview: mcpAuditGoal(20),
      workspace: env().LONGHAUL_WORKSPACE ?? process.cwd(),
      profile: MCP_AUDIT_PROFILE,
    },
  ]),
});

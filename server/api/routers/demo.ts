import { DEMO_STEPS_BASE, DEMO_STEPS_PER_PACKAGE } from "../../domain/launch-task.ts";
import { DEMO_DEFAULT_LIMIT, licenseAuditGoal } from "../../tools/demo/license-audit.ts";
import { env } from "../../env.ts";
import { createTRPCRouter, readProcedure } from "../trpc.ts";

export const demoRouter = createTRPCRouter({
  /** The demos offered in the launch form. */
  list: readProcedure.query(() => [
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
  ]),
});

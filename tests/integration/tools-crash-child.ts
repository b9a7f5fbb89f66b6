// Child process for tools-crash.test.ts: runs one send_email call through the gateway and prints
// its output as JSON. With LONGHAUL_CRASH_AT=tool:after-side-effect it dies (exit 137) right after
// the effect commits, before printing anything: a kill -9 between the effect and the step's return.
import { createPrismaClient } from "../../server/db/client.ts";
import { executeToolCall } from "../../server/tools/registry.ts";

const [url, taskId, runId, stepId, rawArguments] = process.argv.slice(2) as [string, string, string, string, string];
const prisma = createPrismaClient(url, { max: 2 });
const result = await executeToolCall({ name: "send_email", rawArguments, ctx: { prisma, taskId, runId, stepId, workspace: "/tmp" } });
process.stdout.write(`${JSON.stringify(result)}\n`);
await prisma.$disconnect();

// Child process for escalation-apply-crash.test.ts: decides an escalation as a handler's request does
// (decideEscalation over prismaDecidePorts, undoSeconds 0 → applied in the request), sending events
// to the executor at <executorUrl>. With LONGHAUL_CRASH_AT=escalation:apply-before-commit it dies
// (exit 137) in the middle of applying; with escalation:applied-before-start after the commit, before
// the resumed run's start is sent. Prints the result as JSON when it does not crash.
import { createPrismaClient } from "../../server/db/client.ts";
import { prismaDecidePorts } from "../../server/db/escalation-repository.ts";
import { decideEscalation, decideEscalationInputSchema } from "../../server/domain/decide-escalation.ts";
import { TEST_EVENT_KEY } from "../support/executor-harness.ts";

const [url, executorUrl, escalationId, decision] = process.argv.slice(2) as [string, string, string, string];
const prisma = createPrismaClient(url, { max: 2 });
const send = async (name: string, data: Record<string, unknown>, id?: string) => {
  const res = await fetch(`${executorUrl}/e/${TEST_EVENT_KEY}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify([{ name, data, ...(id ? { id } : {}) }]),
  });
  if (!res.ok) throw new Error(`event API answered HTTP ${res.status}`);
};
const result = await decideEscalation({
  input: decideEscalationInputSchema.parse({ escalationId, decision }),
  actor: "crash-handler",
  ports: prismaDecidePorts({
    prisma,
    sendApplied: (e) => send("longhaul/escalation.applied", e),
    sendRunStarted: ({ taskId, runId, checkpointId }) => send("longhaul/run.started", { taskId, runId, checkpointId }, `run-started-${runId}`),
  }),
});
process.stdout.write(`${JSON.stringify(result)}\n`);
await prisma.$disconnect();

import { prismaRecoverDecisionsPorts, recoverEscalationDecisions } from "../features/escalations/index.ts";
import { prisma } from "../db/prisma.ts";
import { env } from "../env.ts";
import { sendEscalationApplied, sendRunStarted } from "./send.ts";

type Decision = Parameters<typeof sendEscalationApplied>[0]["decision"];

/**
 * One pass of the decision recovery sweep over the process's database and Inngest client
 * ({@link recoverEscalationDecisions}); logs one line when it recovered something.
 * `graceMs`: default `LONGHAUL_RECOVERY_GRACE_MS` (30 s); `retryBaseMs`: first wait after a failed
 * application, default `LONGHAUL_RECOVERY_RETRY_MS` (30 s, doubling per failure).
 */
export async function recoverDecisionsOnce({
  graceMs = env().LONGHAUL_RECOVERY_GRACE_MS,
  retryBaseMs = env().LONGHAUL_RECOVERY_RETRY_MS,
}: { graceMs?: number; retryBaseMs?: number } = {}): Promise<Awaited<ReturnType<typeof recoverEscalationDecisions>>> {
  const ports = prismaRecoverDecisionsPorts({
    prisma: prisma(),
    sendRunStarted,
    sendApplied: ({ escalationId, decision }) => sendEscalationApplied({ escalationId, decision: decision as Decision }),
  });
  const result = await recoverEscalationDecisions({ ports, graceMs, retryBaseMs });
  if (result.reverted.length + result.applied.length + result.restarted.length + result.failed.length > 0) {
    process.stderr.write(
      `[recovery] escalation decisions: reverted applying ${JSON.stringify(result.reverted)}, applied ${JSON.stringify(result.applied)}, start re-sent ${JSON.stringify(result.restarted)}, failed ${JSON.stringify(result.failed)}\n`,
    );
  }
  return result;
}

let timer: NodeJS.Timeout | undefined;

/**
 * Starts the sweep in this process (the web app, at boot): once now, then every `intervalMs`
 * (default 15 s; the timer does not keep the process alive). Idempotent (one timer per process);
 * a failed pass (database away) logs one line per streak of failures and is retried at the next tick.
 */
export function startDecisionRecovery({ intervalMs = 15_000 }: { intervalMs?: number } = {}): void {
  if (timer) return;
  let failing = false;
  const tick = async () => {
    try {
      await recoverDecisionsOnce();
      if (failing) process.stderr.write("[recovery] escalation decisions: sweep works again\n");
      failing = false;
    } catch (error) {
      const why =
        error instanceof Error && error.message
          ? error.message
          : `${error instanceof Error ? error.name : "error"} ${(error as { code?: string })?.code ?? String(error)}`;
      if (!failing) process.stderr.write(`[recovery] escalation decisions: sweep failed (retried every ${intervalMs} ms): ${why}\n`);
      failing = true;
    }
  };
  void tick();
  timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
}

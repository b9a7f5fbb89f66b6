import { ulid } from "ulid";
import { Prisma, type PrismaClient } from "../../server/db/client.ts";
import { prismaResumePorts } from "../../server/db/resume-ports.ts";
import type { ResumePorts } from "../../server/domain/resume-task.ts";
import { waitFor, type AgentStack } from "./agent-stack.ts";

// Helpers of the checkpoint integration tests (tests/integration/checkpoint-*.test.ts), on top of
// the shared agent stack (tests/support/agent-stack.ts): per-test agent profiles, launches and
// resumes through the real domain functions, fault disarming, and DB polling with a deadline.

/** Profile settings a checkpoint test tunes (everything else is copied from the seeded `scripted` profile). */
export type ProfileOverrides = Partial<
  Pick<
    Prisma.AgentProfileCreateInput,
    | "checkpointEverySteps"
    | "contextWindow"
    | "saturationRatio"
    | "autoResumeMax"
    | "stepBudget"
    | "model"
    | "provider"
    | "cachedPricePerMTok"
    | "cacheWritePricePerMTok"
  >
>;

/**
 * Creates an agent profile for one test: a copy of the seeded `scripted` profile (same model, tools,
 * prices, system prompt, detector thresholds) under a unique name `<label>-<ulid>`, with `overrides`.
 * Returns its name.
 */
export async function createTestProfile(db: PrismaClient, label: string, overrides: ProfileOverrides): Promise<string> {
  // Every setting of the seeded profile (model, tools, prices, prompt, detector thresholds …), whatever fields it grows.
  const {
    id: _id,
    name: _name,
    description: _description,
    createdAt: _createdAt,
    updatedAt: _updatedAt,
    mcpServers,
    headers,
    version: _version,
    archivedAt: _archivedAt,
    effort,
    ...base
  } = await db.agentProfile.findUniqueOrThrow({ where: { name: "scripted" } });
  const name = `${label}-${ulid().toLowerCase()}`;
  await db.agentProfile.create({
    data: {
      ...base,
      mcpServers: mcpServers ?? [],
      headers: headers ?? {},
      effort: effort ?? Prisma.DbNull,
      name,
      description: `checkpoint test profile (${label})`,
      ...overrides,
    },
  });
  return name;
}

/** Launches the license-audit demo with agent profile `profile` through the real launch domain. */
export async function launchDemoWithProfile(
  stack: AgentStack,
  { limit, profile }: { limit: number; profile: string },
): Promise<{ taskId: string; runId: string }> {
  return stack.launch({ input: { demo: { kind: "license-audit", limit }, profile }, actor: "checkpoint-test" });
}

/**
 * The real resume ports over the stack's database; `run.started` goes to the stack's executor.
 * `beforeSend` runs after the new Run row exists and before its event is sent (nothing of the new
 * run has executed yet), e.g. to read what its first segment will start from.
 */
export function testResumePorts(
  stack: AgentStack,
  beforeSend?: (event: { taskId: string; runId: string; checkpointId: string | null }) => Promise<void>,
): ResumePorts {
  return prismaResumePorts({
    prisma: stack.db,
    async sendRunStarted(event) {
      await beforeSend?.(event);
      await stack.sendEvent("longhaul/run.started", event, `run-started-${event.runId}`);
    },
  });
}

/** Clears every fault still armed on the scripted model server (`DELETE /control/faults`). */
export async function disarmFaults(stack: AgentStack): Promise<void> {
  const res = await fetch(`${stack.model.url}/control/faults`, { method: "DELETE" });
  if (!res.ok) throw new Error(`disarming faults failed: HTTP ${res.status}`);
}

/** Polls until the task has at least `count` checkpoints; returns them oldest first. */
export async function waitForCheckpoints(db: PrismaClient, taskId: string, count = 1, timeoutMs = 60_000) {
  return waitFor(
    `task ${taskId} to have ${count} checkpoint(s)`,
    async () => {
      const rows = await db.checkpoint.findMany({ where: { taskId }, orderBy: { seq: "asc" } });
      return rows.length >= count ? rows : undefined;
    },
    timeoutMs,
    25,
  );
}

/** Polls until run `runId` has ended (any status but running); returns it. */
export async function waitForRunEnd(db: PrismaClient, runId: string, timeoutMs = 60_000) {
  return waitFor(
    `run ${runId} to end`,
    async () => {
      const run = await db.run.findUnique({ where: { id: runId } });
      return run && run.status !== "running" ? run : undefined;
    },
    timeoutMs,
    50,
  );
}

/**
 * Polls until every `cancel-checkpoint` run for task `taskId` (server/inngest/functions/cancel-checkpoint.ts,
 * started by `longhaul/run.cancelled`) has completed, and there is at least one: after a cancel, the
 * task's latest checkpoint is final only then (the function takes a `cancelled` checkpoint, or none
 * when the latest already covers every step, up to its 10 s settle after the step in flight).
 */
export async function waitForCancelCheckpoint(db: PrismaClient, taskId: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    `the cancel-checkpoint run of task ${taskId}`,
    async () => {
      const rows = await db.$queryRaw<{ status: string }[]>`
        SELECT status FROM executor_run WHERE "functionId" = 'longhaul-cancel-checkpoint' AND event->'data'->>'taskId' = ${taskId}`;
      return (rows.length > 0 && rows.every((r) => r.status === "completed")) || undefined;
    },
    timeoutMs,
    100,
  );
}

/** JSON with object keys sorted, to compare tool arguments regardless of key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

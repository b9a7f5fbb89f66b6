import { profileSnapshotSchema, type ProfileSpec } from "../domain/profile-spec.ts";
import { parseSmokeSpec, smokeProfileSpec } from "../domain/profile-smoke.ts";
import type { PrismaClient } from "./client.ts";

/** Database handle: the client or a transaction's. */
type Db = Pick<PrismaClient, "task" | "agentProfileVersion" | "agentProfile">;

/**
 * The profile version a task runs with, as every part of a run reads it ("each task keeps
 * the profile version it launched with"): the profile's id and current name, the version number and
 * row id, and the version's content (`spec`, parsed with profileSpecSchema's fields: prices and budgets
 * as numbers, USD). A later edit of the profile makes a new version and changes none of this.
 */
export interface TaskProfile {
  profileId: string;
  versionId: string;
  version: number;
  spec: ProfileSpec;
}

/**
 * The profile version of a version row: its snapshot (written by server/db/sql/profile-versions.sql)
 * parsed back with zod (JSON columns are validated when read).
 * @throws ZodError when a snapshot does not parse (a bug: the trigger writes what the schema reads).
 */
export function profileOfVersion(row: { id: string; profileId: string; version: number; snapshot: unknown }): TaskProfile {
  return { profileId: row.profileId, versionId: row.id, version: row.version, spec: profileSnapshotSchema.parse(row.snapshot) };
}

/**
 * The profile version task `taskId` launched with (Task.profileVersionId; a task from before versions
 * existed, with none, gets its profile's current version). For a profile smoke test (Task.smoke) the
 * version's endpoint is the offline smoke model instead of the profile's own
 * (server/domain/profile-smoke.ts `smokeProfileSpec`): every part of every run of the task — the
 * model call, pricing, the timeline — reads it from here.
 * @throws Error when the task does not exist.
 */
export async function taskProfile({ prisma, taskId }: { prisma: Db; taskId: string }): Promise<TaskProfile> {
  const task = await prisma.task.findUniqueOrThrow({ where: { id: taskId }, select: { profileId: true, profileVersion: true, smoke: true } });
  const launched = task.profileVersion ? profileOfVersion(task.profileVersion) : await currentProfileVersion({ prisma, profileId: task.profileId });
  return parseSmokeSpec(task.smoke) ? { ...launched, spec: smokeProfileSpec(launched.spec) } : launched;
}

/** The current version of profile `profileId` (the row its `version` column points at). @throws Error when missing. */
export async function currentProfileVersion({ prisma, profileId }: { prisma: Db; profileId: string }): Promise<TaskProfile> {
  const p = await prisma.agentProfile.findUniqueOrThrow({ where: { id: profileId }, select: { version: true } });
  const row = await prisma.agentProfileVersion.findUniqueOrThrow({ where: { profileId_version: { profileId, version: p.version } } });
  return profileOfVersion(row);
}

/** The fields of a run's RunStart.profile taken from a version (USD per million tokens, null = price package). */
export function runProfileOf(p: TaskProfile) {
  const s = p.spec;
  return {
    name: s.name,
    version: p.version,
    versionId: p.versionId,
    model: s.model,
    provider: s.provider,
    baseUrl: s.baseUrl,
    apiKeyEnv: s.apiKeyEnv,
    headers: s.headers,
    tools: s.tools,
    systemPrompt: s.systemPrompt,
    contextWindow: s.contextWindow,
    prices: {
      inputPerMTok: s.inputPricePerMTok,
      cachedPerMTok: s.cachedPricePerMTok,
      outputPerMTok: s.outputPricePerMTok,
      cacheWritePerMTok: s.cacheWritePricePerMTok,
    },
    effort: s.effort,
  };
}

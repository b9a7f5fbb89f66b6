import type { PrismaClient } from "./client.ts";
import { MCP_AUDIT_PROFILE } from "../../lib/contracts/demo.ts";
import { estimateLaunch, type LaunchEstimate } from "../domain/launch-estimate.ts";

/** Most recent completed tasks an estimate reads (newest first): enough for a stable p90, bounded for a large history. */
export const ESTIMATE_SAMPLE_LIMIT = 200;

/**
 * What a launch is estimated to cost before it starts (task.estimateLaunch): the latest
 * {@link ESTIMATE_SAMPLE_LIMIT} completed tasks of the profile — for a demo, of the same demo kind
 * (Task.input.demo), with their limits; for a goal, those launched with no demo — with their steps
 * and dollars from task_cost, through estimateLaunch (median and p90; a demo's scaled per package).
 * The MCP demo launched on the default `scripted` profile runs on `mcp-audit` (launchTask), so its
 * history is read there. Tasks of any template count: they are tasks of the same profile and kind.
 */
export async function readLaunchEstimate({
  prisma,
  profile,
  demo,
}: {
  prisma: PrismaClient;
  profile: string;
  demo?: { kind: "license-audit" | "mcp-audit"; limit: number };
}): Promise<LaunchEstimate & { profile: string }> {
  const name = demo?.kind === "mcp-audit" && profile === "scripted" ? MCP_AUDIT_PROFILE : profile;
  const kind = demo?.kind ?? null;
  const rows = await prisma.$queryRaw<{ steps: number; usd: string; limit: number | null }[]>`
    SELECT coalesce(c.steps, 0)::int AS steps, coalesce(c."costUsd", 0)::text AS usd,
           CASE WHEN jsonb_typeof(k.input->'limit') = 'number' THEN (k.input->>'limit')::int END AS "limit"
    FROM task k JOIN agent_profile p ON p.id = k."profileId" LEFT JOIN task_cost c ON c."taskId" = k.id
    WHERE p.name = ${name} AND k.status = 'completed'
      AND (CASE WHEN ${kind}::text IS NULL THEN k.input->>'demo' IS NULL ELSE k.input->>'demo' = ${kind}::text END)
    ORDER BY k."createdAt" DESC, k.id DESC
    LIMIT ${ESTIMATE_SAMPLE_LIMIT}`;
  const history = rows.map((r) => ({ steps: r.steps, costUsd: Number(r.usd), limit: demo ? r.limit : null }));
  return { profile: name, ...estimateLaunch({ history, profile: name, demo }) };
}

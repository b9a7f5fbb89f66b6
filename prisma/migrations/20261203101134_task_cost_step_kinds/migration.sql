-- AlterTable
ALTER TABLE "task_cost" ADD COLUMN     "checkpointSteps" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "humanSteps" INTEGER NOT NULL DEFAULT 0;

-- Backfill from the steps already recorded (issue 18, "one step count everywhere": checkpoint and
-- human steps counted apart). The /costs rollup does not use these columns, so its trigger is
-- bypassed for the backfill (server/db/sql/task-cost.sql reads longhaul.cost_rollup).
SELECT set_config('longhaul.cost_rollup', 'off', false);
UPDATE "task_cost" c SET "checkpointSteps" = x.checkpoints, "humanSteps" = x.human
FROM (
  SELECT r."taskId", count(*) FILTER (WHERE s.kind = 'checkpoint')::int AS checkpoints, count(*) FILTER (WHERE s.kind = 'human')::int AS human
  FROM "step" s JOIN "run" r ON r.id = s."runId" WHERE s.kind IN ('checkpoint', 'human') GROUP BY r."taskId"
) x
WHERE c."taskId" = x."taskId";
SELECT set_config('longhaul.cost_rollup', 'on', false);

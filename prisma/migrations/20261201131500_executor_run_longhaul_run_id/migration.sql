-- The run page executor view finds the executor runs of a Longhaul run by the triggering event
-- data.runId (server/db/executor-view-queries.ts). Without this index it scanned executor_run on
-- every poll. Prisma schemas cannot declare an expression index, so it lives only in this migration.
-- (No semicolons or quotes in these comments: the migration engine splits the script on them.)
CREATE INDEX IF NOT EXISTS "executor_run_longhaul_run_id" ON "executor_run" ((("event" -> 'data') ->> 'runId'));

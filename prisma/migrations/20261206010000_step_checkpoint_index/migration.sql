-- Checkpoint steps by run and position: task.steps lists a long task's newest steps and numbers the
-- segment its list starts in by counting the run's cutting checkpoint steps before it. A partial index
-- (about one step in forty is a checkpoint) keeps that count from reading every earlier step of the
-- run. The Prisma schema language has no partial indexes without a preview feature, so it lives here
-- only (the Step model names it). Schema diffs never drop an index they do not know.
CREATE INDEX "step_runId_index_checkpoint_idx" ON "step" ("runId", "index") WHERE kind = 'checkpoint';

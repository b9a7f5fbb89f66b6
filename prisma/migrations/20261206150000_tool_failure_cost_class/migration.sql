-- A run that ends tool_failure (a tool kept failing, the run escalated with that reason) is its own
-- failure class on /costs and its CSVs, as it is in the eval report, instead of "error": the class
-- list is lib/contracts/failure.ts FAILURE_CLASSES, and cost_rollup.failure's CHECK allows exactly
-- '' and that list.
--
-- Additive: the CHECK only gains a value (added NOT VALID, then validated: no row breaks it), and
-- longhaul_cost_failure is replaced in place. Its definition is kept with the other cost routines in
-- server/db/sql/task-cost.sql, applied after the migrations, and that file also rebuilds cost_rollup once
-- so rows written before this migration (which counted these tasks under 'error') move to the new key.

ALTER TABLE "cost_rollup" DROP CONSTRAINT IF EXISTS "cost_rollup_failure_check";
ALTER TABLE "cost_rollup" ADD CONSTRAINT "cost_rollup_failure_check" CHECK (failure IN ('', 'transient', 'saturation', 'drift', 'dead_end', 'budget', 'loop', 'stall', 'tool_failure', 'error')) NOT VALID;

CREATE OR REPLACE FUNCTION longhaul_cost_failure(status text, last_end_reason text) RETURNS text AS $$
  SELECT CASE WHEN status IN ('completed', 'queued', 'running') THEN ''
              WHEN status = 'dead_end' THEN 'dead_end'
              WHEN last_end_reason IS NULL OR last_end_reason = 'cancelled_by_user' THEN ''
              WHEN last_end_reason = 'budget_exhausted' THEN 'budget'
              WHEN last_end_reason IN ('transient', 'saturation', 'drift', 'loop', 'stall', 'tool_failure', 'error') THEN last_end_reason
              ELSE 'error' END
$$ LANGUAGE sql IMMUTABLE;

ALTER TABLE "cost_rollup" VALIDATE CONSTRAINT "cost_rollup_failure_check";

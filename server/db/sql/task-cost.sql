-- Per-task cost summary (issue 9, "Fast at a manager's scale"): the table task_cost holds one row per
-- task with its spend split by cause, tokens, steps, runs and escalations, maintained here by row
-- triggers on every write path (model_call insert and cause corrections, step and run inserts, run
-- end reasons, escalation inserts), so the /costs rollups read task ⋈ task_cost and never scan
-- model_call. Applied after the migrations on every migrate (idempotent), by server/db/migrations.ts.
--
-- Money: USD, numeric. Causes (server/domain/cost-causes.ts): productive · retry · replay ·
-- checkpoint · compaction · discarded · restart.

-- Adds (sign = 1) or removes (sign = -1) one model call's figures to/from its task's summary row.
CREATE OR REPLACE FUNCTION longhaul_task_cost_apply(task_id text, m model_call, sign int) RETURNS void AS $$
BEGIN
  UPDATE task_cost SET
    calls = calls + sign,
    "billedCalls" = "billedCalls" + CASE WHEN m.billed THEN sign ELSE 0 END,
    "estimatedCalls" = "estimatedCalls" + CASE WHEN m.estimated THEN sign ELSE 0 END,
    "promptTokens" = "promptTokens" + sign * m."promptTokens",
    "cachedTokens" = "cachedTokens" + sign * m."cachedTokens",
    "completionTokens" = "completionTokens" + sign * m."completionTokens",
    "reasoningTokens" = "reasoningTokens" + sign * m."reasoningTokens",
    "costUsd" = "costUsd" + sign * m."costUsd",
    "productiveUsd" = "productiveUsd" + CASE WHEN m.cause = 'productive' THEN sign * m."costUsd" ELSE 0 END,
    "retryUsd" = "retryUsd" + CASE WHEN m.cause = 'retry' THEN sign * m."costUsd" ELSE 0 END,
    "replayUsd" = "replayUsd" + CASE WHEN m.cause = 'replay' THEN sign * m."costUsd" ELSE 0 END,
    "checkpointUsd" = "checkpointUsd" + CASE WHEN m.cause = 'checkpoint' THEN sign * m."costUsd" ELSE 0 END,
    "compactionUsd" = "compactionUsd" + CASE WHEN m.cause = 'compaction' THEN sign * m."costUsd" ELSE 0 END,
    "discardedUsd" = "discardedUsd" + CASE WHEN m.cause = 'discarded' THEN sign * m."costUsd" ELSE 0 END,
    "restartUsd" = "restartUsd" + CASE WHEN m.cause = 'restart' THEN sign * m."costUsd" ELSE 0 END,
    "estimatedUsd" = "estimatedUsd" + CASE WHEN m.estimated THEN sign * m."costUsd" ELSE 0 END,
    model = CASE WHEN sign > 0 THEN m.model ELSE model END,
    "priceVersion" = CASE WHEN sign > 0 AND m."priceVersion" <> '' THEN m."priceVersion" ELSE "priceVersion" END,
    "updatedAt" = now()
  WHERE "taskId" = task_id;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION longhaul_task_cost_model_call() RETURNS trigger AS $$
DECLARE
  task_id text;
BEGIN
  SELECT r."taskId" INTO task_id FROM run r WHERE r.id = NEW."runId";
  IF task_id IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO task_cost ("taskId") VALUES (task_id) ON CONFLICT DO NOTHING;
  IF TG_OP = 'UPDATE' THEN
    PERFORM longhaul_task_cost_apply(task_id, OLD, -1);
  END IF;
  PERFORM longhaul_task_cost_apply(task_id, NEW, 1);
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER model_call_task_cost_insert AFTER INSERT ON model_call
  FOR EACH ROW EXECUTE FUNCTION longhaul_task_cost_model_call();
CREATE OR REPLACE TRIGGER model_call_task_cost_update AFTER UPDATE OF cause, "costUsd", billed, estimated, "promptTokens", "cachedTokens", "completionTokens" ON model_call
  FOR EACH ROW WHEN (OLD.cause IS DISTINCT FROM NEW.cause OR OLD."costUsd" IS DISTINCT FROM NEW."costUsd" OR OLD.billed IS DISTINCT FROM NEW.billed
                     OR OLD.estimated IS DISTINCT FROM NEW.estimated OR OLD."promptTokens" IS DISTINCT FROM NEW."promptTokens"
                     OR OLD."cachedTokens" IS DISTINCT FROM NEW."cachedTokens" OR OLD."completionTokens" IS DISTINCT FROM NEW."completionTokens")
  EXECUTE FUNCTION longhaul_task_cost_model_call();

CREATE OR REPLACE FUNCTION longhaul_task_cost_step() RETURNS trigger AS $$
DECLARE
  task_id text;
BEGIN
  SELECT r."taskId" INTO task_id FROM run r WHERE r.id = NEW."runId";
  IF task_id IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO task_cost ("taskId", steps) VALUES (task_id, 1)
    ON CONFLICT ("taskId") DO UPDATE SET steps = task_cost.steps + 1, "updatedAt" = now();
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER step_task_cost AFTER INSERT ON step
  FOR EACH ROW WHEN (NEW.kind IN ('model', 'tool')) EXECUTE FUNCTION longhaul_task_cost_step();

CREATE OR REPLACE FUNCTION longhaul_task_cost_run() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO task_cost ("taskId", runs, resumes, forks)
      VALUES (NEW."taskId", 1, CASE WHEN NEW.cause IN ('resume', 'auto_resume') THEN 1 ELSE 0 END, CASE WHEN NEW.cause = 'fork' THEN 1 ELSE 0 END)
      ON CONFLICT ("taskId") DO UPDATE SET runs = task_cost.runs + 1, resumes = task_cost.resumes + EXCLUDED.resumes,
        forks = task_cost.forks + EXCLUDED.forks, "updatedAt" = now();
  ELSE
    UPDATE task_cost SET "lastEndReason" = NEW."endReason", "updatedAt" = now() WHERE "taskId" = NEW."taskId";
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER run_task_cost_insert AFTER INSERT ON run FOR EACH ROW EXECUTE FUNCTION longhaul_task_cost_run();
CREATE OR REPLACE TRIGGER run_task_cost_end AFTER UPDATE OF "endReason" ON run
  FOR EACH ROW WHEN (NEW."endReason" IS NOT NULL AND OLD."endReason" IS DISTINCT FROM NEW."endReason") EXECUTE FUNCTION longhaul_task_cost_run();

CREATE OR REPLACE FUNCTION longhaul_task_cost_escalation() RETURNS trigger AS $$
BEGIN
  INSERT INTO task_cost ("taskId", escalations) VALUES (NEW."taskId", 1)
    ON CONFLICT ("taskId") DO UPDATE SET escalations = task_cost.escalations + 1, "updatedAt" = now();
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER escalation_task_cost AFTER INSERT ON escalation FOR EACH ROW EXECUTE FUNCTION longhaul_task_cost_escalation();

-- Cause correction when a task is resumed or forked (called by server/db/cost-repository.ts inside
-- the transaction that creates the new run): the task's work in its other runs after the checkpoint
-- the new run starts from (all of it when it starts from the beginning) is marked `discarded`;
-- for a resume (not a fork), the work before the checkpoint — what a restart from scratch would
-- redo — and the work discarded are added to the task's resume figures. Returns the discarded USD.
CREATE OR REPLACE FUNCTION longhaul_cost_on_resume(task_id text, new_run_id text, checkpoint_id text, run_cause text) RETURNS numeric AS $$
DECLARE
  cp_at timestamp(3);
  kept numeric := 0;
  lost numeric := 0;
BEGIN
  IF checkpoint_id IS NOT NULL THEN
    SELECT c."createdAt" INTO cp_at FROM checkpoint c WHERE c.id = checkpoint_id AND c."taskId" = task_id;
    SELECT coalesce(sum(m."costUsd"), 0) INTO kept FROM model_call m JOIN run r ON r.id = m."runId"
      WHERE r."taskId" = task_id AND r.id <> new_run_id AND m."createdAt" <= cp_at
        AND m.cause IN ('productive', 'checkpoint', 'compaction');
  END IF;
  WITH changed AS (
    UPDATE model_call m SET cause = 'discarded' FROM run r
      WHERE r.id = m."runId" AND r."taskId" = task_id AND r.id <> new_run_id
        AND m.cause IN ('productive', 'checkpoint', 'compaction')
        AND (cp_at IS NULL OR m."createdAt" > cp_at)
      RETURNING m."costUsd"
  )
  SELECT coalesce(sum("costUsd"), 0) INTO lost FROM changed;
  IF run_cause IN ('resume', 'auto_resume') THEN
    INSERT INTO task_cost ("taskId") VALUES (task_id) ON CONFLICT DO NOTHING;
    UPDATE task_cost SET "resumeKeptUsd" = "resumeKeptUsd" + kept, "resumeDiscardedUsd" = "resumeDiscardedUsd" + lost, "updatedAt" = now()
      WHERE "taskId" = task_id;
  END IF;
  RETURN lost;
END
$$ LANGUAGE plpgsql;

-- Rebuilds task_cost from the ledger for every task (repair, and the bench's bulk loader, which
-- writes rows with triggers off). Resume figures are recomputed per resumed run with the rule of
-- longhaul_cost_on_resume, from the causes as they are now (a later resume from an earlier
-- checkpoint can make them differ from what the write path recorded at the time).
CREATE OR REPLACE FUNCTION longhaul_task_cost_rebuild() RETURNS bigint AS $$
DECLARE
  n bigint;
BEGIN
  DELETE FROM task_cost;
  INSERT INTO task_cost ("taskId", calls, "billedCalls", "estimatedCalls", "promptTokens", "cachedTokens", "completionTokens", "reasoningTokens",
                         "costUsd", "productiveUsd", "retryUsd", "replayUsd", "checkpointUsd", "compactionUsd", "discardedUsd", "restartUsd", "estimatedUsd",
                         model, "priceVersion")
  SELECT r."taskId", count(*), count(*) FILTER (WHERE m.billed), count(*) FILTER (WHERE m.estimated),
         sum(m."promptTokens"), sum(m."cachedTokens"), sum(m."completionTokens"), sum(m."reasoningTokens"),
         sum(m."costUsd"),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'productive'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'retry'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'replay'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'checkpoint'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'compaction'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'discarded'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'restart'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.estimated), 0),
         (array_agg(m.model ORDER BY m."createdAt" DESC))[1], (array_agg(m."priceVersion" ORDER BY m."createdAt" DESC))[1]
  FROM model_call m JOIN run r ON r.id = m."runId" GROUP BY r."taskId";
  INSERT INTO task_cost ("taskId", runs, resumes, forks, "lastEndReason")
  SELECT r."taskId", count(*), count(*) FILTER (WHERE r.cause IN ('resume', 'auto_resume')), count(*) FILTER (WHERE r.cause = 'fork'),
         (array_agg(r."endReason" ORDER BY r."startedAt" DESC) FILTER (WHERE r."endReason" IS NOT NULL))[1]
  FROM run r GROUP BY r."taskId"
  ON CONFLICT ("taskId") DO UPDATE SET runs = EXCLUDED.runs, resumes = EXCLUDED.resumes, forks = EXCLUDED.forks, "lastEndReason" = EXCLUDED."lastEndReason";
  INSERT INTO task_cost ("taskId", steps)
  SELECT r."taskId", count(*) FROM step s JOIN run r ON r.id = s."runId" WHERE s.kind IN ('model', 'tool') GROUP BY r."taskId"
  ON CONFLICT ("taskId") DO UPDATE SET steps = EXCLUDED.steps;
  INSERT INTO task_cost ("taskId", escalations)
  SELECT e."taskId", count(*) FROM escalation e GROUP BY e."taskId"
  ON CONFLICT ("taskId") DO UPDATE SET escalations = EXCLUDED.escalations;
  UPDATE task_cost t SET "resumeKeptUsd" = x.kept, "resumeDiscardedUsd" = x.lost
  FROM (
    SELECT nr."taskId",
           coalesce(sum((SELECT sum(m."costUsd") FROM model_call m JOIN run o ON o.id = m."runId"
                         WHERE o."taskId" = nr."taskId" AND o.id <> nr.id AND m."createdAt" <= c."createdAt"
                           AND m.cause IN ('productive', 'checkpoint', 'compaction'))), 0) AS kept,
           coalesce(sum((SELECT sum(m."costUsd") FROM model_call m JOIN run o ON o.id = m."runId"
                         WHERE o."taskId" = nr."taskId" AND o.id <> nr.id AND m."createdAt" < nr."startedAt"
                           AND (c.id IS NULL OR m."createdAt" > c."createdAt") AND m.cause = 'discarded')), 0) AS lost
    FROM run nr LEFT JOIN checkpoint c ON c.id = nr."fromCheckpointId"
    WHERE nr.cause IN ('resume', 'auto_resume') GROUP BY nr."taskId"
  ) x WHERE t."taskId" = x."taskId";
  SELECT count(*) INTO n FROM task_cost;
  RETURN n;
END
$$ LANGUAGE plpgsql;

-- First apply on a database that has a ledger but no summaries yet: build them once.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM task_cost) AND EXISTS (SELECT 1 FROM run) THEN
    PERFORM longhaul_task_cost_rebuild();
  END IF;
END
$$;

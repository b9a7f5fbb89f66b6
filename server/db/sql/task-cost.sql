-- Per-task cost summary ("Fast at a manager's scale"): the table task_cost holds one row per
-- task with its spend split by cause, tokens, steps (the budget's, and checkpoint and human steps
-- apart), runs and escalations, maintained here by row
-- triggers on every write path (model_call insert and cause corrections, step and run inserts, run
-- end reasons, escalation inserts), so the /costs rollups read task ⋈ task_cost and never scan
-- model_call. Applied after the migrations on every migrate (idempotent), by server/db/migrations.ts.
--
-- Money: USD, numeric. Causes (server/domain/cost-causes.ts): productive · retry · replay ·
-- checkpoint · compaction · discarded · restart.

-- The one definition of a budget step ("one step count everywhere"): a step counts against
-- the task's step budget when it is a model step or a tool step. Checkpoint and human (escalation
-- decision) steps are counted apart. Used by task_cost.steps (and so /costs), the ceiling
-- (server/db/run-repository.ts taskUsage), task.get and task.list (server/db/step-counts.ts);
-- lib/contracts/step-count.ts BUDGET_STEP_KINDS lists the same kinds for client code.
CREATE OR REPLACE FUNCTION longhaul_budget_step(kind text) RETURNS boolean AS $$
  SELECT kind IN ('model', 'tool')
$$ LANGUAGE sql IMMUTABLE;

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
    "cacheWriteTokens" = "cacheWriteTokens" + sign * coalesce(m."cacheWriteTokens", 0),
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
    "priceVersions" = CASE WHEN sign > 0 AND m."priceVersion" <> '' AND NOT (m."priceVersion" = ANY(coalesce("priceVersions", '{}')))
                           THEN ARRAY(SELECT v FROM unnest(coalesce("priceVersions", '{}') || m."priceVersion") AS v ORDER BY v)
                           ELSE "priceVersions" END,
    "updatedAt" = now()
  WHERE "taskId" = task_id;
END
$$ LANGUAGE plpgsql;

-- Every path that changes a task's summary locks the task row first (FOR NO KEY UPDATE: it does not
-- block foreign-key checks), and the rollup trigger on task_cost reads the task under that lock: a
-- status change and a summary change of the same task are serialised, always in the order task →
-- task_cost, so cost_rollup never adds one task's figures under a stale outcome (and no deadlock).
CREATE OR REPLACE FUNCTION longhaul_task_lock(task_id text) RETURNS void AS $$
BEGIN
  PERFORM 1 FROM task t WHERE t.id = task_id FOR NO KEY UPDATE;
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
  PERFORM longhaul_task_lock(task_id);
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
CREATE OR REPLACE TRIGGER model_call_task_cost_update AFTER UPDATE OF cause, "costUsd", billed, estimated, "promptTokens", "cachedTokens", "completionTokens", "cacheWriteTokens" ON model_call
  FOR EACH ROW WHEN (OLD.cause IS DISTINCT FROM NEW.cause OR OLD."costUsd" IS DISTINCT FROM NEW."costUsd" OR OLD.billed IS DISTINCT FROM NEW.billed
                     OR OLD.estimated IS DISTINCT FROM NEW.estimated OR OLD."promptTokens" IS DISTINCT FROM NEW."promptTokens"
                     OR OLD."cachedTokens" IS DISTINCT FROM NEW."cachedTokens" OR OLD."completionTokens" IS DISTINCT FROM NEW."completionTokens"
                     OR OLD."cacheWriteTokens" IS DISTINCT FROM NEW."cacheWriteTokens")
  EXECUTE FUNCTION longhaul_task_cost_model_call();

CREATE OR REPLACE FUNCTION longhaul_task_cost_step() RETURNS trigger AS $$
DECLARE
  task_id text;
BEGIN
  SELECT r."taskId" INTO task_id FROM run r WHERE r.id = NEW."runId";
  IF task_id IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM longhaul_task_lock(task_id);
  IF longhaul_budget_step(NEW.kind) THEN
    INSERT INTO task_cost ("taskId", steps) VALUES (task_id, 1)
      ON CONFLICT ("taskId") DO UPDATE SET steps = task_cost.steps + 1, "updatedAt" = now();
  ELSIF NEW.kind = 'checkpoint' THEN
    INSERT INTO task_cost ("taskId", "checkpointSteps") VALUES (task_id, 1)
      ON CONFLICT ("taskId") DO UPDATE SET "checkpointSteps" = task_cost."checkpointSteps" + 1, "updatedAt" = now();
  ELSE
    INSERT INTO task_cost ("taskId", "humanSteps") VALUES (task_id, 1)
      ON CONFLICT ("taskId") DO UPDATE SET "humanSteps" = task_cost."humanSteps" + 1, "updatedAt" = now();
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

-- Counts each new step once: the budget's steps in `steps`, checkpoint and human steps apart.
CREATE OR REPLACE TRIGGER step_task_cost AFTER INSERT ON step
  FOR EACH ROW WHEN (longhaul_budget_step(NEW.kind) OR NEW.kind IN ('checkpoint', 'human')) EXECUTE FUNCTION longhaul_task_cost_step();

CREATE OR REPLACE FUNCTION longhaul_task_cost_run() RETURNS trigger AS $$
BEGIN
  PERFORM longhaul_task_lock(NEW."taskId");
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
  PERFORM longhaul_task_lock(NEW."taskId");
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
  PERFORM longhaul_task_lock(task_id);
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
  -- The rollup is rebuilt in bulk at the end, not row by row through the task_cost trigger.
  PERFORM set_config('longhaul.cost_rollup', 'off', true);
  DELETE FROM task_cost;
  INSERT INTO task_cost ("taskId", calls, "billedCalls", "estimatedCalls", "promptTokens", "cachedTokens", "completionTokens", "reasoningTokens", "cacheWriteTokens",
                         "costUsd", "productiveUsd", "retryUsd", "replayUsd", "checkpointUsd", "compactionUsd", "discardedUsd", "restartUsd", "estimatedUsd",
                         model, "priceVersion", "priceVersions")
  SELECT r."taskId", count(*), count(*) FILTER (WHERE m.billed), count(*) FILTER (WHERE m.estimated),
         sum(m."promptTokens"), sum(m."cachedTokens"), sum(m."completionTokens"), sum(m."reasoningTokens"), coalesce(sum(m."cacheWriteTokens"), 0),
         sum(m."costUsd"),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'productive'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'retry'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'replay'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'checkpoint'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'compaction'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'discarded'), 0),
         coalesce(sum(m."costUsd") FILTER (WHERE m.cause = 'restart'), 0), coalesce(sum(m."costUsd") FILTER (WHERE m.estimated), 0),
         (array_agg(m.model ORDER BY m."createdAt" DESC))[1], (array_agg(m."priceVersion" ORDER BY m."createdAt" DESC))[1],
         coalesce(array_agg(DISTINCT m."priceVersion" ORDER BY m."priceVersion") FILTER (WHERE m."priceVersion" <> ''), '{}')
  FROM model_call m JOIN run r ON r.id = m."runId" GROUP BY r."taskId";
  INSERT INTO task_cost ("taskId", runs, resumes, forks, "lastEndReason")
  SELECT r."taskId", count(*), count(*) FILTER (WHERE r.cause IN ('resume', 'auto_resume')), count(*) FILTER (WHERE r.cause = 'fork'),
         (array_agg(r."endReason" ORDER BY r."startedAt" DESC) FILTER (WHERE r."endReason" IS NOT NULL))[1]
  FROM run r GROUP BY r."taskId"
  ON CONFLICT ("taskId") DO UPDATE SET runs = EXCLUDED.runs, resumes = EXCLUDED.resumes, forks = EXCLUDED.forks, "lastEndReason" = EXCLUDED."lastEndReason";
  INSERT INTO task_cost ("taskId", steps, "checkpointSteps", "humanSteps")
  SELECT r."taskId", count(*) FILTER (WHERE longhaul_budget_step(s.kind)), count(*) FILTER (WHERE s.kind = 'checkpoint'), count(*) FILTER (WHERE s.kind = 'human')
  FROM step s JOIN run r ON r.id = s."runId" WHERE longhaul_budget_step(s.kind) OR s.kind IN ('checkpoint', 'human') GROUP BY r."taskId"
  ON CONFLICT ("taskId") DO UPDATE SET steps = EXCLUDED.steps, "checkpointSteps" = EXCLUDED."checkpointSteps", "humanSteps" = EXCLUDED."humanSteps";
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
  PERFORM longhaul_cost_rollup_rebuild();
  PERFORM set_config('longhaul.cost_rollup', 'on', true);
  SELECT count(*) INTO n FROM task_cost;
  RETURN n;
END
$$ LANGUAGE plpgsql;


-- ---------------------------------------------------------------------------------------------------
-- The /costs rollup (cost_rollup, cost_steps): each task's summary counted once under its key —
-- launch day (UTC date of task."createdAt") × profile × model (of its latest call; '' before any) ×
-- outcome × failure class × price tables — and, for completed tasks (with or without gaps), its step
-- count in the histogram (keyed by outcome too). Kept by the triggers below on task (insert; status, launch time or profile change) and
-- task_cost (every change): the task's old contribution is taken out and the new one put in, so
-- /costs sums a few thousand rollup rows and never reads task, task_cost or model_call per task.

-- Outcome of a task for /costs (server/domain/cost-rollup.ts outcomeOf): from Task.status and, for a
-- completed task, Task.outcome (completed_with_gaps: its own outcome). The one-argument
-- form of before is dropped so that no caller keys a task by its status alone.
DROP FUNCTION IF EXISTS longhaul_cost_outcome(text);
CREATE OR REPLACE FUNCTION longhaul_cost_outcome(status text, task_outcome text) RETURNS text AS $$
  SELECT CASE status WHEN 'completed' THEN CASE WHEN task_outcome = 'completed_with_gaps' THEN 'completed_with_gaps' ELSE 'completed' END
                     WHEN 'dead_end' THEN 'dead_end' WHEN 'failed' THEN 'failed'
                     WHEN 'cancelled' THEN 'cancelled' WHEN 'waiting_for_human' THEN 'waiting' ELSE 'running' END
$$ LANGUAGE sql IMMUTABLE;

-- Whether an outcome counts as a completed task (completion rate, cost per completed task, the steps
-- histogram): completed, with or without gaps (server/domain/cost-rollup.ts COMPLETED_OUTCOMES).
CREATE OR REPLACE FUNCTION longhaul_cost_done(outcome text) RETURNS boolean AS $$
  SELECT outcome IN ('completed', 'completed_with_gaps')
$$ LANGUAGE sql IMMUTABLE;

-- Failure class of a task ('' for none; server/domain/cost-rollup.ts failureClassOf, the classes of
-- lib/contracts/failure.ts FAILURE_CLASSES).
CREATE OR REPLACE FUNCTION longhaul_cost_failure(status text, last_end_reason text) RETURNS text AS $$
  SELECT CASE WHEN status IN ('completed', 'queued', 'running') THEN ''
              WHEN status = 'dead_end' THEN 'dead_end'
              WHEN last_end_reason IS NULL OR last_end_reason = 'cancelled_by_user' THEN ''
              WHEN last_end_reason = 'budget_exhausted' THEN 'budget'
              WHEN last_end_reason IN ('transient', 'saturation', 'drift', 'loop', 'stall', 'tool_failure', 'error') THEN last_end_reason
              ELSE 'error' END
$$ LANGUAGE sql IMMUTABLE;

-- The rollup key of a task with its summary (c may be NULL: no summary yet), as text for ordering.
CREATE OR REPLACE FUNCTION longhaul_cost_rollup_key(t task, c task_cost) RETURNS text AS $$
  SELECT concat_ws(E'\x1f', t."createdAt"::date::text, t."profileId", coalesce(c.model, ''), longhaul_cost_outcome(t.status, t.outcome),
                   longhaul_cost_failure(t.status, c."lastEndReason"), array_to_string(coalesce(c."priceVersions", '{}'), ' + '))
$$ LANGUAGE sql STABLE;

-- Adds (sign = 1) or takes out (sign = -1) one task's contribution to cost_rollup and cost_steps.
-- Rows that fall to zero tasks are deleted (the rebuild writes none either).
CREATE OR REPLACE FUNCTION longhaul_cost_rollup_add(t task, c task_cost, sign int) RETURNS void AS $$
DECLARE
  k_day date := t."createdAt"::date;
  k_model text := coalesce(c.model, '');
  k_outcome text := longhaul_cost_outcome(t.status, t.outcome);
  k_failure text := longhaul_cost_failure(t.status, c."lastEndReason");
  k_versions text := array_to_string(coalesce(c."priceVersions", '{}'), ' + ');
  done int := CASE WHEN longhaul_cost_done(longhaul_cost_outcome(t.status, t.outcome)) THEN 1 ELSE 0 END;
BEGIN
  INSERT INTO cost_rollup AS r (day, "profileId", model, outcome, failure, "priceVersions", tasks, completed, calls, "billedCalls", "estimatedCalls",
                                "costUsd", "productiveUsd", "retryUsd", "replayUsd", "checkpointUsd", "compactionUsd", "discardedUsd", "restartUsd",
                                "estimatedUsd", "stepsCompleted", escalations, resumed, "resumeKeptUsd", "resumeDiscardedUsd")
  VALUES (k_day, t."profileId", k_model, k_outcome, k_failure, k_versions, sign, sign * done,
          sign * coalesce(c.calls, 0), sign * coalesce(c."billedCalls", 0), sign * coalesce(c."estimatedCalls", 0),
          sign * coalesce(c."costUsd", 0), sign * coalesce(c."productiveUsd", 0), sign * coalesce(c."retryUsd", 0), sign * coalesce(c."replayUsd", 0),
          sign * coalesce(c."checkpointUsd", 0), sign * coalesce(c."compactionUsd", 0), sign * coalesce(c."discardedUsd", 0),
          sign * coalesce(c."restartUsd", 0), sign * coalesce(c."estimatedUsd", 0), sign * done * coalesce(c.steps, 0),
          sign * coalesce(c.escalations, 0), sign * CASE WHEN coalesce(c.resumes, 0) > 0 THEN 1 ELSE 0 END,
          sign * coalesce(c."resumeKeptUsd", 0), sign * coalesce(c."resumeDiscardedUsd", 0))
  ON CONFLICT (day, "profileId", model, outcome, failure, "priceVersions") DO UPDATE SET
    tasks = r.tasks + EXCLUDED.tasks, completed = r.completed + EXCLUDED.completed, calls = r.calls + EXCLUDED.calls,
    "billedCalls" = r."billedCalls" + EXCLUDED."billedCalls", "estimatedCalls" = r."estimatedCalls" + EXCLUDED."estimatedCalls",
    "costUsd" = r."costUsd" + EXCLUDED."costUsd", "productiveUsd" = r."productiveUsd" + EXCLUDED."productiveUsd",
    "retryUsd" = r."retryUsd" + EXCLUDED."retryUsd", "replayUsd" = r."replayUsd" + EXCLUDED."replayUsd",
    "checkpointUsd" = r."checkpointUsd" + EXCLUDED."checkpointUsd", "compactionUsd" = r."compactionUsd" + EXCLUDED."compactionUsd",
    "discardedUsd" = r."discardedUsd" + EXCLUDED."discardedUsd", "restartUsd" = r."restartUsd" + EXCLUDED."restartUsd",
    "estimatedUsd" = r."estimatedUsd" + EXCLUDED."estimatedUsd", "stepsCompleted" = r."stepsCompleted" + EXCLUDED."stepsCompleted",
    escalations = r.escalations + EXCLUDED.escalations, resumed = r.resumed + EXCLUDED.resumed,
    "resumeKeptUsd" = r."resumeKeptUsd" + EXCLUDED."resumeKeptUsd", "resumeDiscardedUsd" = r."resumeDiscardedUsd" + EXCLUDED."resumeDiscardedUsd";
  IF sign < 0 THEN
    DELETE FROM cost_rollup r WHERE r.day = k_day AND r."profileId" = t."profileId" AND r.model = k_model AND r.outcome = k_outcome
      AND r.failure = k_failure AND r."priceVersions" = k_versions AND r.tasks = 0;
  END IF;
  IF done = 1 THEN
    INSERT INTO cost_steps AS h (day, "profileId", model, outcome, steps, tasks) VALUES (k_day, t."profileId", k_model, k_outcome, coalesce(c.steps, 0), sign)
      ON CONFLICT (day, "profileId", model, outcome, steps) DO UPDATE SET tasks = h.tasks + EXCLUDED.tasks;
    IF sign < 0 THEN
      DELETE FROM cost_steps h WHERE h.day = k_day AND h."profileId" = t."profileId" AND h.model = k_model AND h.outcome = k_outcome
        AND h.steps = coalesce(c.steps, 0) AND h.tasks = 0;
    END IF;
  END IF;
END
$$ LANGUAGE plpgsql;

-- Moves a task's contribution from (old task, old summary) to (new task, new summary); the two
-- rollup rows are written in key order, so two tasks moving in opposite directions cannot deadlock.
CREATE OR REPLACE FUNCTION longhaul_cost_rollup_move(t_old task, c_old task_cost, t_new task, c_new task_cost) RETURNS void AS $$
BEGIN
  IF current_setting('longhaul.cost_rollup', true) = 'off' THEN
    RETURN;
  END IF;
  IF longhaul_cost_rollup_key(t_old, c_old) <= longhaul_cost_rollup_key(t_new, c_new) THEN
    PERFORM longhaul_cost_rollup_add(t_old, c_old, -1);
    PERFORM longhaul_cost_rollup_add(t_new, c_new, 1);
  ELSE
    PERFORM longhaul_cost_rollup_add(t_new, c_new, 1);
    PERFORM longhaul_cost_rollup_add(t_old, c_old, -1);
  END IF;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION longhaul_cost_rollup_task_cost() RETURNS trigger AS $$
DECLARE
  t task;
  task_id text := CASE WHEN TG_OP = 'DELETE' THEN OLD."taskId" ELSE NEW."taskId" END;
BEGIN
  IF current_setting('longhaul.cost_rollup', true) = 'off' THEN
    RETURN NULL;
  END IF;
  SELECT * INTO t FROM task WHERE id = task_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM longhaul_cost_rollup_move(t, NULL, t, NEW);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM longhaul_cost_rollup_move(t, OLD, t, NEW);
  ELSE
    PERFORM longhaul_cost_rollup_move(t, OLD, t, NULL);
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER task_cost_rollup AFTER INSERT OR UPDATE OR DELETE ON task_cost
  FOR EACH ROW EXECUTE FUNCTION longhaul_cost_rollup_task_cost();

CREATE OR REPLACE FUNCTION longhaul_cost_rollup_task() RETURNS trigger AS $$
DECLARE
  c task_cost;
BEGIN
  IF current_setting('longhaul.cost_rollup', true) = 'off' THEN
    RETURN NULL;
  END IF;
  SELECT * INTO c FROM task_cost WHERE "taskId" = NEW.id;
  IF TG_OP = 'INSERT' THEN
    PERFORM longhaul_cost_rollup_add(NEW, c, 1);
  ELSE
    PERFORM longhaul_cost_rollup_move(OLD, c, NEW, c);
  END IF;
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER task_cost_rollup_insert AFTER INSERT ON task FOR EACH ROW EXECUTE FUNCTION longhaul_cost_rollup_task();
CREATE OR REPLACE TRIGGER task_cost_rollup_update AFTER UPDATE OF status, outcome, "createdAt", "profileId" ON task
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.outcome IS DISTINCT FROM NEW.outcome
                     OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt" OR OLD."profileId" IS DISTINCT FROM NEW."profileId")
  EXECUTE FUNCTION longhaul_cost_rollup_task();

-- Rebuilds cost_rollup and cost_steps from task ⋈ task_cost (called by longhaul_task_cost_rebuild,
-- and once on first apply). Returns the number of rollup rows.
CREATE OR REPLACE FUNCTION longhaul_cost_rollup_rebuild() RETURNS bigint AS $$
DECLARE
  n bigint;
BEGIN
  DELETE FROM cost_steps;
  DELETE FROM cost_rollup;
  CREATE TEMP TABLE IF NOT EXISTS longhaul_rollup_src ON COMMIT DROP AS
    SELECT t."createdAt"::date AS day, t."profileId", coalesce(c.model, '') AS model, longhaul_cost_outcome(t.status, t.outcome) AS outcome,
           longhaul_cost_failure(t.status, c."lastEndReason") AS failure, array_to_string(coalesce(c."priceVersions", '{}'), ' + ') AS versions,
           longhaul_cost_done(longhaul_cost_outcome(t.status, t.outcome)) AS done,
           c.calls, c."billedCalls", c."estimatedCalls", c."costUsd", c."productiveUsd", c."retryUsd", c."replayUsd", c."checkpointUsd",
           c."compactionUsd", c."discardedUsd", c."restartUsd", c."estimatedUsd", c.steps, c.escalations, c.resumes, c."resumeKeptUsd", c."resumeDiscardedUsd"
    FROM task t LEFT JOIN task_cost c ON c."taskId" = t.id;
  INSERT INTO cost_rollup (day, "profileId", model, outcome, failure, "priceVersions", tasks, completed, calls, "billedCalls", "estimatedCalls",
                           "costUsd", "productiveUsd", "retryUsd", "replayUsd", "checkpointUsd", "compactionUsd", "discardedUsd", "restartUsd",
                           "estimatedUsd", "stepsCompleted", escalations, resumed, "resumeKeptUsd", "resumeDiscardedUsd")
  SELECT day, "profileId", model, outcome, failure, versions, count(*), count(*) FILTER (WHERE done),
         coalesce(sum(calls), 0), coalesce(sum("billedCalls"), 0), coalesce(sum("estimatedCalls"), 0),
         coalesce(sum("costUsd"), 0), coalesce(sum("productiveUsd"), 0), coalesce(sum("retryUsd"), 0), coalesce(sum("replayUsd"), 0),
         coalesce(sum("checkpointUsd"), 0), coalesce(sum("compactionUsd"), 0), coalesce(sum("discardedUsd"), 0), coalesce(sum("restartUsd"), 0),
         coalesce(sum("estimatedUsd"), 0), coalesce(sum(steps) FILTER (WHERE done), 0), coalesce(sum(escalations), 0),
         count(*) FILTER (WHERE resumes > 0), coalesce(sum("resumeKeptUsd"), 0), coalesce(sum("resumeDiscardedUsd"), 0)
  FROM longhaul_rollup_src GROUP BY day, "profileId", model, outcome, failure, versions;
  INSERT INTO cost_steps (day, "profileId", model, outcome, steps, tasks)
  SELECT day, "profileId", model, outcome, coalesce(steps, 0), count(*) FROM longhaul_rollup_src WHERE done
  GROUP BY day, "profileId", model, outcome, coalesce(steps, 0);
  DROP TABLE longhaul_rollup_src;
  SELECT count(*) INTO n FROM cost_rollup;
  RETURN n;
END
$$ LANGUAGE plpgsql;

-- First apply on a database that has tasks but no summaries or no rollup yet: build them once. And
-- once after the outcome key learned completed_with_gaps: rollup rows written before
-- it counted such tasks under 'completed', so while a completed-with-gaps task exists and no rollup
-- row has that outcome, the rollup is rebuilt (the triggers would otherwise take a task out of a
-- row it was never added to).
-- Likewise once after the failure key learned tool_failure (rows written before counted such tasks
-- under 'error'): while the tasks of that class and the rollup's count of them differ, the rollup
-- (not the per-task summaries, which do not change) is rebuilt.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM task_cost) AND EXISTS (SELECT 1 FROM run) THEN
    PERFORM longhaul_task_cost_rebuild();
  ELSIF NOT EXISTS (SELECT 1 FROM cost_rollup) AND EXISTS (SELECT 1 FROM task) THEN
    PERFORM longhaul_task_cost_rebuild();
  ELSIF EXISTS (SELECT 1 FROM task WHERE status = 'completed' AND outcome = 'completed_with_gaps')
        AND NOT EXISTS (SELECT 1 FROM cost_rollup WHERE outcome = 'completed_with_gaps') THEN
    PERFORM longhaul_task_cost_rebuild();
  ELSIF (SELECT count(*) FROM task t JOIN task_cost c ON c."taskId" = t.id
         WHERE c."lastEndReason" = 'tool_failure' AND longhaul_cost_failure(t.status, c."lastEndReason") = 'tool_failure')
        <> (SELECT coalesce(sum(tasks), 0) FROM cost_rollup WHERE failure = 'tool_failure') THEN
    PERFORM longhaul_cost_rollup_rebuild();
  END IF;
END
$$;

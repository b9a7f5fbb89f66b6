-- Live updates (pages follow a run without polling): every write to the run-state tables notifies
-- channel `longhaul_changes` with {t: table, taskId}, which the web app LISTENs to and pushes over SSE.
-- Applied after the migrations on every migrate (idempotent), by server/db/migrations.ts: the wasm
-- schema engine splits migration scripts at every semicolon, which breaks a PL/pgSQL body.
CREATE OR REPLACE FUNCTION longhaul_notify_change() RETURNS trigger AS $$
DECLARE
  task_id text;
BEGIN
  IF TG_TABLE_NAME = 'task' THEN
    task_id := NEW.id;
  ELSIF TG_TABLE_NAME = 'step' OR TG_TABLE_NAME = 'model_call' THEN
    SELECT r."taskId" INTO task_id FROM run r WHERE r.id = NEW."runId";
  ELSE
    task_id := NEW."taskId";
  END IF;
  PERFORM pg_notify('longhaul_changes', json_build_object('t', TG_TABLE_NAME, 'taskId', task_id)::text);
  RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE OR REPLACE TRIGGER task_notify_change AFTER INSERT OR UPDATE ON task FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER run_notify_change AFTER INSERT OR UPDATE ON run FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER step_notify_change AFTER INSERT OR UPDATE ON step FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER fact_notify_change AFTER INSERT OR UPDATE ON fact FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER artifact_notify_change AFTER INSERT OR UPDATE ON artifact FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER outbox_message_notify_change AFTER INSERT OR UPDATE ON outbox_message FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER checkpoint_notify_change AFTER INSERT OR UPDATE ON checkpoint FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER alert_notify_change AFTER INSERT OR UPDATE ON alert FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();
CREATE OR REPLACE TRIGGER escalation_notify_change AFTER INSERT OR UPDATE ON escalation FOR EACH ROW EXECUTE FUNCTION longhaul_notify_change();

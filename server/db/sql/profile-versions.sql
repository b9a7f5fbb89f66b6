-- Versioned agent profiles ("Each task keeps the profile version it launched with"). Every
-- write to agent_profile that changes its content bumps agent_profile.version and writes one immutable
-- agent_profile_version row holding the profile's columns as JSON (the snapshot); a write that changes
-- nothing (the same profile applied twice, archiving, a touch of updatedAt) makes no version. A task
-- inserted without a version gets its profile's current one, so every creator of a task (launch, fork,
-- scripts, tests) records what it runs with. Applied after the migrations on every migrate
-- (idempotent), by server/db/migrations.ts. Snapshot shape: lib/contracts/profile.ts profileSnapshotSchema.

-- The versioned content of a profile: every column but identity, bookkeeping and archival.
CREATE OR REPLACE FUNCTION longhaul_profile_snapshot(p agent_profile) RETURNS jsonb AS $$
  SELECT to_jsonb(p) - 'id' - 'version' - 'archivedAt' - 'createdAt' - 'updatedAt';
$$ LANGUAGE sql IMMUTABLE;

CREATE OR REPLACE FUNCTION longhaul_profile_version_bump() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.version := 1;
  ELSIF longhaul_profile_snapshot(NEW) IS DISTINCT FROM longhaul_profile_snapshot(OLD) THEN
    NEW.version := OLD.version + 1;
  ELSE
    NEW.version := OLD.version;
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION longhaul_profile_version_write() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.version <> OLD.version THEN
    INSERT INTO agent_profile_version (id, "profileId", version, snapshot, "createdAt")
    VALUES (NEW.id || ':v' || NEW.version, NEW.id, NEW.version, longhaul_profile_snapshot(NEW), now())
    ON CONFLICT (id) DO NOTHING;
  END IF;
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION longhaul_task_profile_version() RETURNS trigger AS $$
BEGIN
  IF NEW."profileVersionId" IS NULL THEN
    SELECT p.id || ':v' || p.version INTO NEW."profileVersionId" FROM agent_profile p WHERE p.id = NEW."profileId";
  END IF;
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER IF EXISTS longhaul_profile_version_bump ON agent_profile;
CREATE TRIGGER longhaul_profile_version_bump BEFORE INSERT OR UPDATE ON agent_profile
  FOR EACH ROW EXECUTE FUNCTION longhaul_profile_version_bump();

DROP TRIGGER IF EXISTS longhaul_profile_version_write ON agent_profile;
CREATE TRIGGER longhaul_profile_version_write AFTER INSERT OR UPDATE ON agent_profile
  FOR EACH ROW EXECUTE FUNCTION longhaul_profile_version_write();

DROP TRIGGER IF EXISTS longhaul_task_profile_version ON task;
CREATE TRIGGER longhaul_task_profile_version BEFORE INSERT ON task
  FOR EACH ROW EXECUTE FUNCTION longhaul_task_profile_version();

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "apiKeyEnv" TEXT,
ADD COLUMN     "archivedAt" TIMESTAMP(3),
ADD COLUMN     "headers" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "version" INTEGER NOT NULL DEFAULT 1;

-- AlterTable
ALTER TABLE "task" ADD COLUMN     "profileVersionId" TEXT;

-- CreateTable
CREATE TABLE "agent_profile_version" (
    "id" TEXT NOT NULL,
    "profileId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "snapshot" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_profile_version_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "agent_profile_version_profileId_version_key" ON "agent_profile_version"("profileId", "version");

-- AddForeignKey
ALTER TABLE "agent_profile_version" ADD CONSTRAINT "agent_profile_version_profileId_fkey" FOREIGN KEY ("profileId") REFERENCES "agent_profile"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_profileVersionId_fkey" FOREIGN KEY ("profileVersionId") REFERENCES "agent_profile_version"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Backfill (hand-written): version 1 of every existing profile, and every existing task on it. The
-- snapshot expression is longhaul_profile_snapshot in server/db/sql/profile-versions.sql.
INSERT INTO "agent_profile_version" ("id", "profileId", "version", "snapshot")
SELECT p."id" || ':v1', p."id", 1, to_jsonb(p) - 'id' - 'version' - 'archivedAt' - 'createdAt' - 'updatedAt' FROM "agent_profile" p;

UPDATE "task" SET "profileVersionId" = "profileId" || ':v1' WHERE "profileVersionId" IS NULL;

-- CreateIndex (hand-written): the tasks of a profile version (running-task checks before archiving).
CREATE INDEX "task_profileVersionId_idx" ON "task"("profileVersionId");

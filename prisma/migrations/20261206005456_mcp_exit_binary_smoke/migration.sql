-- AlterTable
ALTER TABLE "task" ADD COLUMN     "smoke" JSONB;

-- AlterTable
ALTER TABLE "artifact" ADD COLUMN     "data" BYTEA;

-- AlterTable
ALTER TABLE "mcp_server" ADD COLUMN     "lastExitAt" TIMESTAMP(3),
ADD COLUMN     "lastExitCode" INTEGER,
ADD COLUMN     "lastExitSignal" TEXT,
ADD COLUMN     "restarts" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "mcpServers" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "task" ADD COLUMN     "mcpTools" JSONB;

-- AlterTable
ALTER TABLE "step" ADD COLUMN     "progress" JSONB;

-- CreateTable
CREATE TABLE "mcp_server" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "archivedAt" TIMESTAMP(3),
    "createdBy" TEXT NOT NULL DEFAULT 'admin',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "lastStartedAt" TIMESTAMP(3),
    "lastPid" INTEGER,
    "serverInfo" JSONB,
    "discoveredTools" JSONB,
    "discoveredAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastErrorAt" TIMESTAMP(3),

    CONSTRAINT "mcp_server_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "mcp_server_name_key" ON "mcp_server"("name");

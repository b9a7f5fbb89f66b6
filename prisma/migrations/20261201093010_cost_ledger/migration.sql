-- AlterTable
ALTER TABLE "model_call" ADD COLUMN     "estimated" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "priceVersion" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "reasoningTokens" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "task_cost" (
    "taskId" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "billedCalls" INTEGER NOT NULL DEFAULT 0,
    "estimatedCalls" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" BIGINT NOT NULL DEFAULT 0,
    "cachedTokens" BIGINT NOT NULL DEFAULT 0,
    "completionTokens" BIGINT NOT NULL DEFAULT 0,
    "reasoningTokens" BIGINT NOT NULL DEFAULT 0,
    "costUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "productiveUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "retryUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "replayUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "checkpointUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "compactionUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "discardedUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "restartUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "estimatedUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "steps" INTEGER NOT NULL DEFAULT 0,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "resumes" INTEGER NOT NULL DEFAULT 0,
    "forks" INTEGER NOT NULL DEFAULT 0,
    "escalations" INTEGER NOT NULL DEFAULT 0,
    "resumeKeptUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "resumeDiscardedUsd" DECIMAL(16,8) NOT NULL DEFAULT 0,
    "model" TEXT,
    "lastEndReason" TEXT,
    "priceVersion" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_cost_pkey" PRIMARY KEY ("taskId")
);

-- CreateIndex
CREATE INDEX "model_call_runId_createdAt_idx" ON "model_call"("runId", "createdAt");

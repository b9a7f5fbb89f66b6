-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "autoResumeMax" INTEGER NOT NULL DEFAULT 2,
ADD COLUMN     "checkpointEverySteps" INTEGER NOT NULL DEFAULT 40,
ADD COLUMN     "expensiveStepUsd" DECIMAL(12,6),
ADD COLUMN     "saturationRatio" DOUBLE PRECISION NOT NULL DEFAULT 0.7;

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "checkpointRequestedAt" TIMESTAMP(3),
ADD COLUMN     "fromCheckpointId" TEXT,
ADD COLUMN     "guidance" TEXT,
ADD COLUMN     "segments" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "checkpoint" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "afterStepId" TEXT NOT NULL,
    "nextTurn" INTEGER NOT NULL,
    "nextIndex" INTEGER NOT NULL,
    "goal" TEXT NOT NULL,
    "workingSet" JSONB NOT NULL,
    "completedSteps" JSONB NOT NULL,
    "openQuestion" TEXT,
    "phase" TEXT,
    "summary" TEXT NOT NULL DEFAULT '',
    "budgetsUsed" JSONB NOT NULL,
    "sideEffects" JSONB NOT NULL,
    "contextTokens" INTEGER NOT NULL DEFAULT 0,
    "transcriptTokens" INTEGER NOT NULL DEFAULT 0,
    "good" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "checkpoint_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "checkpoint_taskId_createdAt_idx" ON "checkpoint"("taskId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "checkpoint_runId_afterStepId_key" ON "checkpoint"("runId", "afterStepId");

-- CreateIndex
CREATE UNIQUE INDEX "checkpoint_taskId_seq_key" ON "checkpoint"("taskId", "seq");

-- AddForeignKey
ALTER TABLE "checkpoint" ADD CONSTRAINT "checkpoint_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

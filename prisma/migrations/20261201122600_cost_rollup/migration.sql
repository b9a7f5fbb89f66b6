-- AlterTable
ALTER TABLE "task_cost" ADD COLUMN     "priceVersions" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "cost_rollup" (
    "day" DATE NOT NULL,
    "profileId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "failure" TEXT NOT NULL,
    "priceVersions" TEXT NOT NULL,
    "tasks" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "billedCalls" INTEGER NOT NULL DEFAULT 0,
    "estimatedCalls" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "productiveUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "retryUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "replayUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "checkpointUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "compactionUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "discardedUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "restartUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "estimatedUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "stepsCompleted" INTEGER NOT NULL DEFAULT 0,
    "escalations" INTEGER NOT NULL DEFAULT 0,
    "resumed" INTEGER NOT NULL DEFAULT 0,
    "resumeKeptUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,
    "resumeDiscardedUsd" DECIMAL(18,8) NOT NULL DEFAULT 0,

    CONSTRAINT "cost_rollup_pkey" PRIMARY KEY ("day","profileId","model","outcome","failure","priceVersions")
);

-- CreateTable
CREATE TABLE "cost_steps" (
    "day" DATE NOT NULL,
    "profileId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "steps" INTEGER NOT NULL,
    "tasks" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "cost_steps_pkey" PRIMARY KEY ("day","profileId","model","steps")
);

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "escalationDueMinutes" INTEGER NOT NULL DEFAULT 60,
ADD COLUMN     "escalationRole" TEXT NOT NULL DEFAULT 'operator',
ADD COLUMN     "stallGraceSteps" INTEGER NOT NULL DEFAULT 3,
ADD COLUMN     "stallSteps" INTEGER NOT NULL DEFAULT 5;

-- AlterTable
ALTER TABLE "run" ADD COLUMN     "escalationRequestNote" TEXT,
ADD COLUMN     "escalationRequestedAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "alert" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "escalation" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "evidence" JSONB NOT NULL DEFAULT '{}',
    "checkpointId" TEXT,
    "costUsd" DECIMAL(14,8) NOT NULL DEFAULT 0,
    "assigneeRole" TEXT NOT NULL DEFAULT 'operator',
    "dueAt" TIMESTAMP(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "decision" TEXT,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "guidance" TEXT,
    "budgetIncrease" JSONB,
    "factEdits" JSONB,
    "deadEndReason" TEXT,
    "resultRunId" TEXT,
    "notifications" INTEGER NOT NULL DEFAULT 0,
    "lastNotifiedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "appliedAt" TIMESTAMP(3),

    CONSTRAINT "escalation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_taskId_createdAt_idx" ON "alert"("taskId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "alert_runId_stepId_kind_key" ON "alert"("runId", "stepId", "kind");

-- CreateIndex
CREATE INDEX "escalation_status_dueAt_idx" ON "escalation"("status", "dueAt");

-- CreateIndex
CREATE INDEX "escalation_taskId_idx" ON "escalation"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "escalation_runId_stepId_key" ON "escalation"("runId", "stepId");

-- AddForeignKey
ALTER TABLE "alert" ADD CONSTRAINT "alert_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "escalation" ADD CONSTRAINT "escalation_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

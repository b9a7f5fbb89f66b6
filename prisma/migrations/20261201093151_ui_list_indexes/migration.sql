-- CreateIndex
CREATE INDEX "task_createdAt_id_idx" ON "task"("createdAt", "id");

-- CreateIndex
CREATE INDEX "task_profileId_createdAt_idx" ON "task"("profileId", "createdAt");

-- CreateIndex
CREATE INDEX "escalation_status_decidedAt_idx" ON "escalation"("status", "decidedAt");

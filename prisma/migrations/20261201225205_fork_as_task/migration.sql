-- AlterTable
ALTER TABLE "task" ADD COLUMN     "forkedFromCheckpointId" TEXT,
ADD COLUMN     "forkedFromTaskId" TEXT;

-- CreateIndex
CREATE INDEX "task_forkedFromTaskId_idx" ON "task"("forkedFromTaskId");

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_forkedFromTaskId_fkey" FOREIGN KEY ("forkedFromTaskId") REFERENCES "task"("id") ON DELETE SET NULL ON UPDATE CASCADE;

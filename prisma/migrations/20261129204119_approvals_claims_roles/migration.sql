-- DropIndex
DROP INDEX "escalation_taskId_idx";

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "escalationChain" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "requireApproval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "task" ADD COLUMN     "requireApproval" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "escalation" ADD COLUMN     "applyAfter" TIMESTAMP(3),
ADD COLUMN     "claimedAt" TIMESTAMP(3),
ADD COLUMN     "claimedBy" TEXT,
ADD COLUMN     "fingerprint" TEXT;

-- CreateIndex
CREATE INDEX "escalation_taskId_fingerprint_idx" ON "escalation"("taskId", "fingerprint");

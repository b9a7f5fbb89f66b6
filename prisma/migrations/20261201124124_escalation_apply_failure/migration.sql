-- AlterTable
ALTER TABLE "escalation" ADD COLUMN     "applyError" TEXT,
ADD COLUMN     "applyFailedAt" TIMESTAMP(3),
ADD COLUMN     "applyFailures" INTEGER NOT NULL DEFAULT 0;

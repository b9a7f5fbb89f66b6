-- AlterTable
ALTER TABLE "escalation" ADD COLUMN     "fromCheckpointForResult" TEXT;

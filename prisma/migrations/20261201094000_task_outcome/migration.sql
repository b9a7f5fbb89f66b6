-- AlterTable
ALTER TABLE "task" ADD COLUMN     "outcome" TEXT;

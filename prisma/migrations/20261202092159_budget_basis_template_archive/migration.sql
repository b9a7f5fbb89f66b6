-- AlterTable
ALTER TABLE "task" ADD COLUMN     "budgetBasis" JSONB;

-- AlterTable
ALTER TABLE "launch_template" ADD COLUMN     "archivedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "effort" JSONB;

-- AlterTable
ALTER TABLE "step" ADD COLUMN     "effortLevel" TEXT,
ADD COLUMN     "effortModel" TEXT,
ADD COLUMN     "effortRule" TEXT;

-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "cacheWritePricePerMTok" DECIMAL(12,6);

-- AlterTable
ALTER TABLE "step" ADD COLUMN     "cacheWriteTokens" INTEGER,
ADD COLUMN     "reasoningTokens" INTEGER;

-- AlterTable
ALTER TABLE "model_call" ADD COLUMN     "cacheWriteTokens" INTEGER;

-- AlterTable
ALTER TABLE "task_cost" ADD COLUMN     "cacheWriteTokens" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "cost_steps" DROP CONSTRAINT "cost_steps_pkey",
ADD COLUMN     "outcome" TEXT NOT NULL DEFAULT 'completed',
ADD CONSTRAINT "cost_steps_pkey" PRIMARY KEY ("day", "profileId", "model", "outcome", "steps");

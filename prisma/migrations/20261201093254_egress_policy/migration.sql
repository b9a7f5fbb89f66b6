-- AlterTable
ALTER TABLE "agent_profile" ADD COLUMN     "egressEmailAllow" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "egressHttpAllow" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "egressOnBreach" TEXT;

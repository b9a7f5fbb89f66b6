-- AlterTable
ALTER TABLE "run" ADD COLUMN     "escalationRequestedBy" TEXT;

-- AlterTable
ALTER TABLE "auth_user" ADD COLUMN     "deactivatedAt" TIMESTAMP(3);

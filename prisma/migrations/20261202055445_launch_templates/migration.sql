-- AlterTable
ALTER TABLE "task" ADD COLUMN     "templateId" TEXT;

-- CreateTable
CREATE TABLE "launch_template" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "launch" JSONB NOT NULL,
    "fromTaskId" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "launch_template_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "launch_template_name_key" ON "launch_template"("name");

-- CreateIndex
CREATE INDEX "task_templateId_status_idx" ON "task"("templateId", "status");

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_templateId_fkey" FOREIGN KEY ("templateId") REFERENCES "launch_template"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "batch_operation" (
    "id" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "userId" TEXT,
    "via" TEXT NOT NULL,
    "selection" JSONB NOT NULL,
    "guidance" TEXT,
    "total" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "batch_operation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "batch_item" (
    "batchId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "message" TEXT,
    "runId" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "batch_item_pkey" PRIMARY KEY ("batchId","taskId")
);

-- CreateIndex
CREATE INDEX "batch_operation_createdAt_idx" ON "batch_operation"("createdAt");

-- CreateIndex
CREATE INDEX "batch_item_taskId_idx" ON "batch_item"("taskId");

-- AddForeignKey
ALTER TABLE "batch_item" ADD CONSTRAINT "batch_item_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "batch_operation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

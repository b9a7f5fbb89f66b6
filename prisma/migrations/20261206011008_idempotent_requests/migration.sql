-- CreateTable
CREATE TABLE "idempotent_request" (
    "id" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "inputHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "result" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "claimedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "idempotent_request_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "idempotent_request_createdAt_idx" ON "idempotent_request"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "idempotent_request_actor_action_key_key" ON "idempotent_request"("actor", "action", "key");

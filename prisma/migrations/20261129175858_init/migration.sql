-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "executor_app" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "sdk" TEXT NOT NULL DEFAULT '',
    "syncedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_app_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_function" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "events" TEXT[],
    "url" TEXT NOT NULL,
    "retries" INTEGER NOT NULL DEFAULT 4,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "executor_function_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_event" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "raw" JSONB NOT NULL,
    "ts" BIGINT NOT NULL,
    "userId" TEXT,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_run" (
    "id" TEXT NOT NULL,
    "functionId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "event" JSONB NOT NULL,
    "events" JSONB NOT NULL,
    "requestVersion" INTEGER NOT NULL DEFAULT -1,
    "forceStepPlan" BOOLEAN NOT NULL DEFAULT false,
    "pending" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "maxAttempts" INTEGER NOT NULL,
    "idempotencyKey" TEXT,
    "output" JSONB,
    "error" JSONB,
    "nextSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "executor_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_step_result" (
    "runId" TEXT NOT NULL,
    "hashedId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "value" JSONB,
    "name" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_step_result_pkey" PRIMARY KEY ("runId","hashedId")
);

-- CreateTable
CREATE TABLE "executor_queue_item" (
    "id" BIGSERIAL NOT NULL,
    "jobId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "stepId" TEXT NOT NULL DEFAULT 'step',
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "availableAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseUntil" TIMESTAMP(3),
    "owner" TEXT,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_queue_item_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_pause" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "hashedId" TEXT,
    "event" TEXT NOT NULL,
    "expression" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_pause_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_op" (
    "id" BIGSERIAL NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "stepId" TEXT NOT NULL DEFAULT 'step',
    "status" INTEGER,
    "ops" JSONB,
    "durationMs" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_op_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_profile" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL,
    "provider" TEXT NOT NULL DEFAULT 'openai',
    "baseUrl" TEXT,
    "tools" TEXT[],
    "stepBudget" INTEGER NOT NULL DEFAULT 200,
    "tokenBudget" INTEGER,
    "costBudgetUsd" DECIMAL(12,6),
    "contextWindow" INTEGER NOT NULL DEFAULT 128000,
    "inputPricePerMTok" DECIMAL(12,6),
    "cachedPricePerMTok" DECIMAL(12,6),
    "outputPricePerMTok" DECIMAL(12,6),
    "systemPrompt" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "agent_profile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task" (
    "id" TEXT NOT NULL,
    "goal" TEXT NOT NULL,
    "profileId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "stepBudget" INTEGER NOT NULL,
    "tokenBudget" INTEGER,
    "costBudgetUsd" DECIMAL(12,6),
    "workspace" TEXT NOT NULL,
    "input" JSONB NOT NULL DEFAULT '{}',
    "result" JSONB,
    "deadEndReason" TEXT,
    "error" TEXT,
    "launchKey" TEXT,
    "createdBy" TEXT NOT NULL DEFAULT 'operator',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "run" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "cause" TEXT NOT NULL DEFAULT 'initial',
    "status" TEXT NOT NULL DEFAULT 'running',
    "endReason" TEXT,
    "error" TEXT,
    "inngestRunId" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "step" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    "stepId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "tool" TEXT,
    "arguments" JSONB,
    "output" JSONB,
    "status" TEXT NOT NULL DEFAULT 'running',
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "summary" TEXT NOT NULL DEFAULT '',
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "durationMs" INTEGER,

    CONSTRAINT "step_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "fact" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "sourceStepId" TEXT NOT NULL,
    "superseded" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "fact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "artifact" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mime" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_message" (
    "id" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "messageId" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "outbox_message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "side_effect" (
    "id" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'intent',
    "result" JSONB,
    "repeats" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "committedAt" TIMESTAMP(3),

    CONSTRAINT "side_effect_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "model_call" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "stepId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "billed" BOOLEAN NOT NULL DEFAULT false,
    "cause" TEXT NOT NULL DEFAULT 'productive',
    "latencyMs" INTEGER NOT NULL,
    "error" TEXT,
    "costUsd" DECIMAL(14,8) NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "model_call_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "executor_function_events_idx" ON "executor_function"("events");

-- CreateIndex
CREATE INDEX "executor_event_name_receivedAt_idx" ON "executor_event"("name", "receivedAt");

-- CreateIndex
CREATE INDEX "executor_event_userId_idx" ON "executor_event"("userId");

-- CreateIndex
CREATE INDEX "executor_run_functionId_status_idx" ON "executor_run"("functionId", "status");

-- CreateIndex
CREATE INDEX "executor_run_idempotencyKey_idx" ON "executor_run"("idempotencyKey");

-- CreateIndex
CREATE INDEX "executor_step_result_runId_seq_idx" ON "executor_step_result"("runId", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "executor_queue_item_jobId_key" ON "executor_queue_item"("jobId");

-- CreateIndex
CREATE INDEX "executor_queue_item_availableAt_idx" ON "executor_queue_item"("availableAt");

-- CreateIndex
CREATE INDEX "executor_queue_item_runId_idx" ON "executor_queue_item"("runId");

-- CreateIndex
CREATE INDEX "executor_pause_event_idx" ON "executor_pause"("event");

-- CreateIndex
CREATE INDEX "executor_pause_runId_idx" ON "executor_pause"("runId");

-- CreateIndex
CREATE INDEX "executor_op_runId_id_idx" ON "executor_op"("runId", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_profile_name_key" ON "agent_profile"("name");

-- CreateIndex
CREATE UNIQUE INDEX "task_launchKey_key" ON "task"("launchKey");

-- CreateIndex
CREATE INDEX "task_status_createdAt_idx" ON "task"("status", "createdAt");

-- CreateIndex
CREATE INDEX "task_createdAt_idx" ON "task"("createdAt");

-- CreateIndex
CREATE INDEX "run_taskId_startedAt_idx" ON "run"("taskId", "startedAt");

-- CreateIndex
CREATE INDEX "step_runId_index_idx" ON "step"("runId", "index");

-- CreateIndex
CREATE UNIQUE INDEX "step_runId_stepId_key" ON "step"("runId", "stepId");

-- CreateIndex
CREATE INDEX "fact_taskId_key_idx" ON "fact"("taskId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "fact_runId_sourceStepId_key_key" ON "fact"("runId", "sourceStepId", "key");

-- CreateIndex
CREATE INDEX "artifact_taskId_name_idx" ON "artifact"("taskId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "artifact_runId_stepId_name_key" ON "artifact"("runId", "stepId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_message_messageId_key" ON "outbox_message"("messageId");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_message_idempotencyKey_key" ON "outbox_message"("idempotencyKey");

-- CreateIndex
CREATE INDEX "outbox_message_taskId_idx" ON "outbox_message"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "side_effect_idempotencyKey_key" ON "side_effect"("idempotencyKey");

-- CreateIndex
CREATE INDEX "side_effect_taskId_fingerprint_idx" ON "side_effect"("taskId", "fingerprint");

-- CreateIndex
CREATE INDEX "model_call_runId_stepId_idx" ON "model_call"("runId", "stepId");

-- AddForeignKey
ALTER TABLE "executor_function" ADD CONSTRAINT "executor_function_appId_fkey" FOREIGN KEY ("appId") REFERENCES "executor_app"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task" ADD CONSTRAINT "task_profileId_fkey" FOREIGN KEY ("profileId") REFERENCES "agent_profile"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "run" ADD CONSTRAINT "run_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "step" ADD CONSTRAINT "step_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "fact" ADD CONSTRAINT "fact_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "artifact" ADD CONSTRAINT "artifact_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "outbox_message" ADD CONSTRAINT "outbox_message_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "side_effect" ADD CONSTRAINT "side_effect_taskId_fkey" FOREIGN KEY ("taskId") REFERENCES "task"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "model_call" ADD CONSTRAINT "model_call_runId_fkey" FOREIGN KEY ("runId") REFERENCES "run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

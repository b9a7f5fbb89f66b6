-- CreateTable
CREATE TABLE "eval_suite" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "eval_suite_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_case" (
    "id" TEXT NOT NULL,
    "suiteId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "launch" JSONB NOT NULL,
    "checks" JSONB NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "eval_case_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_run" (
    "id" TEXT NOT NULL,
    "suiteId" TEXT NOT NULL,
    "profiles" TEXT[],
    "repeats" INTEGER NOT NULL,
    "concurrency" INTEGER NOT NULL,
    "onEscalation" TEXT NOT NULL DEFAULT 'fail',
    "status" TEXT NOT NULL DEFAULT 'running',
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "eval_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "eval_cell" (
    "id" TEXT NOT NULL,
    "evalRunId" TEXT NOT NULL,
    "caseId" TEXT NOT NULL,
    "profile" TEXT NOT NULL,
    "repeat" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "taskId" TEXT,
    "taskStatus" TEXT,
    "failureClass" TEXT,
    "checkResults" JSONB,
    "steps" INTEGER,
    "tokens" INTEGER,
    "costUsd" DECIMAL(16,8),
    "judgeCostUsd" DECIMAL(16,8),
    "wasteUsd" DECIMAL(16,8),
    "escalations" INTEGER,
    "durationMs" INTEGER,
    "startedAt" TIMESTAMP(3),
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "eval_cell_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "eval_suite_name_key" ON "eval_suite"("name");

-- CreateIndex
CREATE UNIQUE INDEX "eval_case_suiteId_key_key" ON "eval_case"("suiteId", "key");

-- CreateIndex
CREATE INDEX "eval_run_suiteId_createdAt_idx" ON "eval_run"("suiteId", "createdAt");

-- CreateIndex
CREATE INDEX "eval_run_createdAt_idx" ON "eval_run"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "eval_cell_taskId_key" ON "eval_cell"("taskId");

-- CreateIndex
CREATE INDEX "eval_cell_evalRunId_status_idx" ON "eval_cell"("evalRunId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "eval_cell_evalRunId_caseId_profile_repeat_key" ON "eval_cell"("evalRunId", "caseId", "profile", "repeat");

-- AddForeignKey
ALTER TABLE "eval_case" ADD CONSTRAINT "eval_case_suiteId_fkey" FOREIGN KEY ("suiteId") REFERENCES "eval_suite"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_run" ADD CONSTRAINT "eval_run_suiteId_fkey" FOREIGN KEY ("suiteId") REFERENCES "eval_suite"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_cell" ADD CONSTRAINT "eval_cell_evalRunId_fkey" FOREIGN KEY ("evalRunId") REFERENCES "eval_run"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "eval_cell" ADD CONSTRAINT "eval_cell_caseId_fkey" FOREIGN KEY ("caseId") REFERENCES "eval_case"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

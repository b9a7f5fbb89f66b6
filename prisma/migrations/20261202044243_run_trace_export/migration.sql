-- CreateTable
CREATE TABLE "run_trace_export" (
    "runId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "claimedAt" TIMESTAMP(3) NOT NULL,
    "exportedAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 1,
    "error" TEXT,
    "spans" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "run_trace_export_pkey" PRIMARY KEY ("runId")
);

-- CreateIndex
CREATE INDEX "run_trace_export_exportedAt_idx" ON "run_trace_export"("exportedAt");

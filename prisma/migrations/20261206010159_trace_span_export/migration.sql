-- AlterTable
ALTER TABLE "run_trace_export" ADD COLUMN     "owner" TEXT;

-- CreateTable
CREATE TABLE "trace_span_export" (
    "runId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "trace_span_export_pkey" PRIMARY KEY ("runId","key")
);

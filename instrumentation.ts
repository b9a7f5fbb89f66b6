/**
 * Next.js start-up hook (runs once per web server process): starts the escalation-decision
 * recovery sweep (server/inngest/decision-recovery.ts) and, when the OTEL_EXPORTER_OTLP_* variables
 * ask for it, the export of finished runs as OpenTelemetry traces (server/telemetry/), in the Node.js
 * runtime only.
 */
export async function register(): Promise<void> {
  // NEXT_RUNTIME is Next's own switch (set by Next, not by the operator), read before any server module loads.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startDecisionRecovery } = await import("@/server/inngest/decision-recovery.ts");
  startDecisionRecovery();
  const { startTraceExport } = await import("@/server/telemetry/trace-export.ts");
  startTraceExport();
}

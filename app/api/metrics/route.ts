import { requireRole } from "@/server/auth/route-guard.ts";
import { processMetrics } from "@/server/telemetry/process-metrics.ts";

export const dynamic = "force-dynamic";

/**
 * GET /api/metrics → this web process's Prometheus metrics (text exposition format): memory, heap,
 * event-loop delay, GC, trace export counters (server/telemetry/process-metrics.ts). Admins only
 * (a session or an API token: `Authorization: Bearer lh_…`), since process figures describe the host.
 */
export async function GET(request: Request): Promise<Response> {
  const who = await requireRole(request, ["admin"], "metrics");
  if (who instanceof Response) return who;
  const registry = processMetrics();
  return new Response(await registry.metrics(), { headers: { "content-type": registry.contentType, "cache-control": "no-store" } });
}

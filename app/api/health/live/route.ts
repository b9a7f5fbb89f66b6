export const dynamic = "force-dynamic";

/**
 * GET /api/health/live → 200 `{ok: true}`: this web process answers HTTP. Liveness only — it reads
 * neither the database nor the executor, so an outage of either never makes it fail (GET /api/health
 * says what is down). `npm start`'s supervisor probes it to restart a web process that is alive but
 * no longer answering (scripts/lib/supervisor.ts).
 */
export function GET(): Response {
  return Response.json({ ok: true }, { headers: { "cache-control": "no-store" } });
}

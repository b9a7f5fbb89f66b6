import { optionalPrincipal } from "@/server/auth/route-guard.ts";
import { pingSharedDatabase } from "@/server/db/health-queries.ts";
import { env } from "@/server/env.ts";

export const dynamic = "force-dynamic";

/**
 * The executor's state as the web app sees it: GET `<INNGEST_BASE_URL>/health` within 1 s — a 2xx
 * is "up", no answer is "down", any other answer "unknown" (e.g. an Inngest server without that route).
 */
async function executorState(): Promise<"up" | "down" | "unknown"> {
  const base = env().INNGEST_BASE_URL;
  if (!base) return "unknown";
  try {
    const res = await fetch(`${base.replace(/\/+$/, "")}/health`, { signal: AbortSignal.timeout(1_000) });
    return res.ok ? "up" : "unknown";
  } catch {
    return "down";
  }
}

/**
 * GET /api/health → `{ok, database, executor}`: 200 when the database answers and the executor is
 * not known to be down (runs cannot advance without it), else 503 — used by the start script and
 * the end-to-end tests to know the system is up, and by operators to see what is down.
 * It answers within about 3 s even when the database accepts connections but never answers
 * (pingSharedDatabase's timeout). Signed out, the answer is only `{ok, database, executor}`; the database error text (which can name
 * hosts and users) is given to admins only.
 */
export async function GET(request: Request): Promise<Response> {
  const executor = await executorState();
  const database = await pingSharedDatabase();
  if (!database.up) {
    // Who asks is read from the same database: give up on it as quickly (then: not an admin).
    const asker = await Promise.race([optionalPrincipal(request).catch(() => null), new Promise<null>((resolve) => setTimeout(resolve, 1_000, null))]);
    const admin = asker?.roles.includes("admin") ?? false;
    if (admin) return Response.json({ ok: false, database: "down", executor, error: database.error }, { status: 503 });
    console.error(`[health] database down: ${database.error}`);
    return Response.json({ ok: false, database: "down", executor, error: "the database does not answer" }, { status: 503 });
  }
  const ok = executor !== "down";
  return Response.json(
    { ok, database: "up", executor, ...(ok ? {} : { error: "the executor does not answer: runs cannot advance" }) },
    { status: ok ? 200 : 503 },
  );
}

import { prisma } from "@/server/db/prisma.ts";

export const dynamic = "force-dynamic";

/** GET /api/health → {ok, database} — used by the start script and tests to know the web app is up. */
export async function GET(): Promise<Response> {
  try {
    await prisma().$queryRaw`SELECT 1`;
    return Response.json({ ok: true, database: "up" });
  } catch (error) {
    return Response.json({ ok: false, database: "down", error: String(error) }, { status: 503 });
  }
}

import { requireRole } from "@/server/auth/route-guard.ts";
import { prisma } from "@/server/db/prisma.ts";

/** Types shown in the browser with ?inline=1 (plain text only: never HTML, SVG or anything scriptable). */
const INLINE_SAFE = new Set(["text/plain", "text/csv", "text/markdown"]);

export const dynamic = "force-dynamic";

/**
 * GET /api/artifacts/{id}[?inline=1] — an artifact's content, as a download (any role; 401 signed
 * out). `inline=1` shows it in the browser only when its type is plain text (INLINE_SAFE), served
 * as text/plain with nosniff and a sandboxing CSP; anything else is always an attachment.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const who = await requireRole(request, [], "artifacts");
  if (who instanceof Response) return who;
  const { id } = await params;
  // Bad input is a 400 in our words, never a database error (PostgreSQL cannot hold NUL, for one).
  if (!/^[A-Za-z0-9_:.-]{1,100}$/.test(id)) return Response.json({ error: "id: must be an artifact id (1–100 letters, digits and _ : . -)" }, { status: 400 });
  const artifact = await prisma().artifact.findUnique({ where: { id } });
  if (!artifact) return Response.json({ error: `artifact ${id} not found` }, { status: 404 });
  const inline = new URL(request.url).searchParams.get("inline") === "1" && INLINE_SAFE.has(artifact.mime);
  return new Response(artifact.content, {
    headers: {
      "content-type": `${inline ? "text/plain" : artifact.mime}; charset=utf-8`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "cache-control": "private, no-store",
      "content-disposition": `${inline ? "inline" : "attachment"}; filename="${artifact.name.replace(/["\\\r\n]/g, "_")}"`,
    },
  });
}

import { prisma } from "@/server/db/prisma.ts";

export const dynamic = "force-dynamic";

/** GET /api/artifacts/{id}[?inline=1] — an artifact's content with its MIME type, as a download. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  // Bad input is a 400 in our words, never a database error (PostgreSQL cannot hold NUL, for one).
  if (!/^[A-Za-z0-9_:.-]{1,100}$/.test(id)) return Response.json({ error: "id: must be an artifact id (1–100 letters, digits and _ : . -)" }, { status: 400 });
  const artifact = await prisma().artifact.findUnique({ where: { id } });
  if (!artifact) return Response.json({ error: `artifact ${id} not found` }, { status: 404 });
  const inline = new URL(request.url).searchParams.get("inline") === "1";
  return new Response(artifact.content, {
    headers: {
      "content-type": `${artifact.mime}; charset=utf-8`,
      "content-disposition": `${inline ? "inline" : "attachment"}; filename="${artifact.name.replace(/["\\\r\n]/g, "_")}"`,
    },
  });
}

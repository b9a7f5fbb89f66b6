import { prisma } from "@/server/db/prisma.ts";

export const dynamic = "force-dynamic";

/** GET /api/artifacts/{id}[?inline=1] — an artifact's content with its MIME type, as a download. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
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

import { requireRole } from "@/server/auth/route-guard.ts";
import { findArtifact } from "@/server/db/artifact-queries.ts";

/** Types shown in the browser with ?inline=1 (plain text only: never HTML, SVG or anything scriptable). */
const INLINE_SAFE = new Set(["text/plain", "text/csv", "text/markdown"]);

export const dynamic = "force-dynamic";

/**
 * What a download of an artifact sends: the binary as stored (`data`, an MCP image, audio or blob),
 * a row written before binary storage (media type "<type>;base64", base64 text in `content`) decoded
 * to the same bytes, or the text as UTF-8.
 */
function artifactBody(artifact: { mime: string; content: string; data: Uint8Array | null }): { bytes: Uint8Array<ArrayBuffer>; mime: string; text: boolean } {
  if (artifact.data) return { bytes: new Uint8Array(artifact.data), mime: artifact.mime, text: false };
  const legacy = /^(.*);base64$/i.exec(artifact.mime);
  if (legacy) return { bytes: new Uint8Array(Buffer.from(artifact.content, "base64")), mime: legacy[1]!.trim() || "application/octet-stream", text: false };
  return { bytes: new Uint8Array(Buffer.from(artifact.content, "utf8")), mime: artifact.mime, text: true };
}

/**
 * GET /api/artifacts/{id}[?inline=1] — an artifact's content, as a download (any role; 401 signed
 * out): text as UTF-8 with its media type, binary as its bytes with its media type (Content-Type from
 * the MCP item's mimeType). `inline=1` shows it in the browser only when its type is plain text
 * (INLINE_SAFE), served as text/plain with nosniff and a sandboxing CSP; anything else is always an
 * attachment.
 */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const who = await requireRole(request, [], "artifacts");
  if (who instanceof Response) return who;
  const { id } = await params;
  // Bad input is a 400 in our words, never a database error (PostgreSQL cannot hold NUL, for one).
  if (!/^[A-Za-z0-9_:.-]{1,100}$/.test(id)) return Response.json({ error: "id: must be an artifact id (1–100 letters, digits and _ : . -)" }, { status: 400 });
  const artifact = await findArtifact(id);
  if (!artifact) return Response.json({ error: `artifact ${id} not found` }, { status: 404 });
  const body = artifactBody(artifact);
  const inline = new URL(request.url).searchParams.get("inline") === "1" && body.text && INLINE_SAFE.has(body.mime);
  return new Response(body.bytes, {
    headers: {
      "content-type": inline ? "text/plain; charset=utf-8" : body.text ? `${body.mime}; charset=utf-8` : body.mime,
      "content-length": String(body.bytes.byteLength),
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "cache-control": "private, no-store",
      "content-disposition": `${inline ? "inline" : "attachment"}; filename="${artifact.name.replace(/["\\\r\n]/g, "_")}"`,
    },
  });
}

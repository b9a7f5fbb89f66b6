import { prisma } from "./prisma.ts";

/** An artifact a run stored, for a download: its name, media type, text `content` and binary `data` (null for text), or null when there is none with `id`. */
export function findArtifact(id: string): Promise<{ name: string; mime: string; content: string; data: Uint8Array | null } | null> {
  return prisma().artifact.findUnique({ where: { id }, select: { name: true, mime: true, content: true, data: true } });
}

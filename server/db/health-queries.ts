import type { PrismaClient } from "./client.ts";

/**
 * Whether the database answers (`SELECT 1`): `{up: true}`, or `{up: false, error}` with the driver's
 * message (a refused connection, a database restarting).
 */
export async function pingDatabase({ prisma }: { prisma: PrismaClient }): Promise<{ up: true } | { up: false; error: string }> {
  try {
    await prisma.$queryRaw`SELECT 1`;
    return { up: true };
  } catch (error) {
    return { up: false, error: String(error) };
  }
}

import { env } from "../env.ts";
import { createPrismaClient, type PrismaClient } from "./client.ts";

const globalForPrisma = globalThis as unknown as { longhaulPrisma?: PrismaClient };

/**
 * The web process's Prisma client (one pool per process, kept across Next.js hot reloads).
 * @throws Error when DATABASE_URL is unset (the start script sets it for the embedded database).
 */
export function prisma(): PrismaClient {
  if (!globalForPrisma.longhaulPrisma) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded PostgreSQL)");
    globalForPrisma.longhaulPrisma = createPrismaClient(url);
  }
  return globalForPrisma.longhaulPrisma;
}

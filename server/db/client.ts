import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/client.ts";

export type { PrismaClient } from "./generated/client.ts";
export { Prisma } from "./generated/client.ts";

/**
 * Creates a Prisma client over `pg` (driver adapter, Prisma 7) for the database at `url`.
 * `max`: pool size. Callers own the client and `$disconnect()` it; a live pool keeps Node running.
 */
export function createPrismaClient(url: string, { max = 10 }: { max?: number } = {}): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max }) });
}

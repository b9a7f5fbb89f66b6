import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import { pingDatabase } from "../../server/db/health-queries.ts";
import { waitFor } from "../support/executor-harness.ts";

// A database that accepts connections and never answers (stopped with SIGSTOP, a hung disk): the
// health check must still answer, "down", instead of waiting with it.

let server: Server;
let db: PrismaClient;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = createServer((socket) => void sockets.push(socket)); // accepts, reads, never writes
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  db = createPrismaClient(`postgresql://nobody:nothing@127.0.0.1:${port}/hung`);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
  await db.$disconnect().catch(() => undefined);
});

describe("pingDatabase against a database that never answers", () => {
  it("answers down within its timeout, naming the wait", async () => {
    const result = await pingDatabase({ prisma: db, timeoutMs: 300 });
    expect(result).toEqual({ up: false, error: "the database did not answer SELECT 1 within 300 ms" });
    // It did reach the hung server. The connection attempt outlives the ping's timeout, and on a busy
    // machine the server may accept it only after those 300 ms: wait for the accept, not for the clock.
    await waitFor("the ping's connection to reach the hung server", () => sockets.length > 0);
  });
});

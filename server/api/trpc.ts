import { initTRPC, TRPCError } from "@trpc/server";
import { idField } from "../domain/input-fields.ts";
import superjson from "superjson";
import { ZodError } from "zod";
import { recordAudit } from "../auth/audit.ts";
import { databaseUnavailableCode, databaseUnavailableMessage, logDatabaseUnavailable } from "../db/db-errors.ts";
import { isJsonObject } from "../db/json-codec.ts";
import { trustedOrigins } from "../auth/auth.ts";
import { crossSiteProblem, identify, type Principal } from "../auth/principal.ts";
import { hasAnyRole, mayActOnTask, needsRoleMessage, type Role } from "../../lib/contracts/roles.ts";
import { sessionUser } from "../auth/session.ts";
import type { PrismaClient } from "../db/generated/client.ts";
import { prisma } from "../db/prisma.ts";
import { AppError, appErrorCodes } from "../errors.ts";

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

/**
 * Per-request context: the database, who is calling (`principal`: a session or an API token, see
 * server/auth/principal.ts; null when signed out) and `actor`, the name the domain records on
 * launches, claims and decisions — always the principal's, never taken from input.
 * `authProblem`: why a presented token was refused; `csrfProblem`: why a cookie-authenticated
 * request looks cross-site (mutations are then refused). Server-side callers (tests,
 * `createCaller`) pass `principal` themselves.
 */
export interface TRPCContext {
  prisma: PrismaClient;
  actor: string;
  principal?: Principal | null;
  authProblem?: string | null;
  csrfProblem?: string | null;
  /** The session could not be read: the database is down or restarting (its cause's code). */
  databaseUnavailable?: string | null;
}

/** Builds the {@link TRPCContext} of an HTTP request from its headers. */
export async function createTRPCContext(opts: { headers: Headers }): Promise<TRPCContext> {
  const db = prisma();
  const identity = await identify({ prisma: db, headers: opts.headers, getSessionUser: sessionUser });
  return {
    prisma: db,
    actor: identity.principal?.name ?? "anonymous",
    principal: identity.principal,
    authProblem: identity.problem,
    databaseUnavailable: identity.principal ? null : (identity.unavailable ?? null),
    csrfProblem: identity.principal?.via === "session" ? crossSiteProblem(opts.headers, trustedOrigins()) : null,
  };
}

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
const errorMapping = t.middleware(async ({ next, path, signal }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) {
      const spec = appErrorCodes[cause.code];
      const hidden = spec.http >= 500;
      if (hidden) console.error(`[trpc] ${path}:`, cause);
      throw new TRPCError({ code: spec.trpc, message: hidden ? "Internal error" : cause.message, cause });
    }
    const down = databaseUnavailableCode(cause);
    if (down) {
      logDatabaseUnavailable(down, path);
      throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: "the database is unavailable (down or restarting): try again in a moment", cause });
    }
    // A request the client gave up on (page closed or left) ends with its abort's error: expected, not logged.
    if (result.error.code === "INTERNAL_SERVER_ERROR" && !signal?.aborted) console.error(`[trpc] ${path}:`, result.error.cause ?? result.error);
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
/** No sign-in needed (nothing in Longhaul uses it for data; kept for health-like procedures). */
export const publicProcedure = t.procedure.use(errorMapping);

/**
 * Who is signed in, for anyone (signed out is an answer, null): but when the session could not be
 * read because the database is unavailable, a 503 naming it — never "signed out", which would send
 * a signed-in person to the sign-in page during an outage.
 */
export const sessionProcedure = publicProcedure.use(({ ctx, next, path }) => {
  if (!ctx.principal && ctx.databaseUnavailable) {
    logDatabaseUnavailable(ctx.databaseUnavailable, path);
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: databaseUnavailableMessage(ctx.databaseUnavailable) });
  }
  return next();
});

function str(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= 200 ? value : null;
}

/**
 * How an audit row names the user acted on: "Name <email>" (an id tells a reader nothing), or the
 * id itself when the user cannot be read.
 */
async function userTarget(db: PrismaClient, userId: string): Promise<string> {
  const user = await db.user.findUnique({ where: { id: userId }, select: { name: true, email: true } }).catch(() => null);
  return user ? `${user.name} <${user.email}>` : userId;
}

/**
 * How an audit row names the API token acted on: `token "<name>" (lh_ab12…)` — its name and the
 * prefix the token list shows — so a reader knows which one was revoked; the id when it cannot be read.
 */
async function tokenTarget(db: PrismaClient, tokenId: string): Promise<string> {
  const token = await db.apiToken.findUnique({ where: { id: tokenId }, select: { name: true, prefix: true } }).catch(() => null);
  return token ? `token "${token.name}" (${token.prefix}…)` : tokenId;
}

/**
 * The one authorisation middleware: signed in (UNAUTHORIZED otherwise, with why a token
 * was refused), a mutation from this app's origin when cookie-authenticated (FORBIDDEN "cross-site
 * request refused" otherwise), holding one of `roles` (FORBIDDEN "<procedure>: this needs the
 * <role> role"; `roles` empty = any role). A mutation that succeeds is written to the audit log
 * (who, what, on which task, the user acted on by name and email, the redacted input).
 */
function requireRoles(roles: readonly Role[], options: { anyRoleOrNone?: boolean } = {}) {
  return t.middleware(async ({ ctx, next, path, type, getRawInput }) => {
    const principal = ctx.principal;
    if (!principal && ctx.databaseUnavailable) {
      // Not "signed out": the session is there, the database that holds it is not (503 naming it).
      logDatabaseUnavailable(ctx.databaseUnavailable, path);
      throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: databaseUnavailableMessage(ctx.databaseUnavailable) });
    }
    if (!principal) {
      throw new TRPCError({
        code: "UNAUTHORIZED",
        message: ctx.authProblem ?? "sign in first (or send an API token: Authorization: Bearer lh_…; for the CLI: npm run cli -- login)",
      });
    }
    if (type === "mutation" && ctx.csrfProblem) throw new TRPCError({ code: "FORBIDDEN", message: ctx.csrfProblem });
    if (!options.anyRoleOrNone && !hasAnyRole(principal.roles, roles)) throw new TRPCError({ code: "FORBIDDEN", message: needsRoleMessage(roles, path) });
    const result = await next({ ctx: { ...ctx, principal, actor: principal.name } });
    if (type === "mutation" && result.ok) {
      const input = (await getRawInput().catch(() => null)) as Record<string, unknown> | null;
      // What the procedure answered (tRPC's data, not a column): an object is searched for a task, a user, an id.
      const out = isJsonObject(result.data) ? result.data : null;
      const escalationId = str(input?.escalationId);
      let taskId = str(input?.taskId) ?? str(out?.taskId);
      if (!taskId && escalationId)
        taskId = (await ctx.prisma.escalation.findUnique({ where: { id: escalationId }, select: { taskId: true } }).catch(() => null))?.taskId ?? null;
      const userId = str(input?.userId);
      const tokenId = str(input?.tokenId);
      // A user in the answer (admin.createUser returns the new user) is named as a user acted on is.
      const userInAnswer = out && str(out.name) && str(out.email) ? `${String(out.name)} <${String(out.email)}>` : null;
      const target =
        escalationId ??
        (userId ? await userTarget(ctx.prisma, userId) : null) ??
        (tokenId ? await tokenTarget(ctx.prisma, tokenId) : null) ??
        userInAnswer ??
        str(out ? out.id : null);
      await recordAudit({ prisma: ctx.prisma, principal, action: path, input, taskId, target });
    }
    return result;
  });
}

/** A procedure for holders of one of `roles` (none given: any role) — see {@link requireRoles}. */
export function procedureFor(...roles: Role[]) {
  return publicProcedure.use(requireRoles(roles));
}

/** Signed in, whatever the roles (one's own account and tokens). */
export const signedInProcedure = publicProcedure.use(requireRoles([], { anyRoleOrNone: true }));
/** Reads of tasks, runs, steps, artifacts, escalations: any role. */
export const readProcedure = procedureFor();
export const operatorProcedure = procedureFor("operator");
export const handlerProcedure = procedureFor("handler");
export const managerProcedure = procedureFor("manager");
export const adminProcedure = procedureFor("admin");

/**
 * Operator actions on one task (`input.taskId`): the caller must hold `operator` and have launched
 * the task (Task.createdBy is their name), or hold `admin`. FORBIDDEN names the owner; an unknown
 * task is the procedure's own NOT_FOUND, after its input is validated.
 */
export const ownTaskProcedure = procedureFor("operator", "admin").use(async ({ ctx, next, getRawInput }) => {
  const input = (await getRawInput().catch(() => null)) as { taskId?: unknown } | null;
  // Only a well-formed id is looked up: anything else is left to the procedure's input schema,
  // which refuses it with a 400 naming the field (a raw NUL or a 5,000-character id never reaches SQL).
  const parsed = idField("taskId").safeParse(input?.taskId);
  const taskId = parsed.success ? parsed.data : null;
  if (taskId) {
    const task = await ctx.prisma.task.findUnique({ where: { id: taskId }, select: { createdBy: true } });
    // An unknown task is left to the procedure: its input is validated first (a 400 names the bad
    // field) and its own lookup answers NOT_FOUND.
    const principal = ctx.principal;
    if (task && !mayActOnTask(principal, task.createdBy)) {
      throw new TRPCError({
        code: "FORBIDDEN",
        message: `task ${taskId} was launched by ${task.createdBy}: an operator acts on their own tasks (or ask an admin)`,
      });
    }
  }
  return next();
});

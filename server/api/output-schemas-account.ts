/**
 * Output schemas of the account and admin procedures (who am I, API tokens, users, the audit log).
 * Strict objects typed against the auth modules' own result types, so a field added there and not
 * here fails to compile or fails the call (INTERNAL_SERVER_ERROR, "Output validation failed"). No
 * schema here has a place for a password or a token's hash: a strict object refuses one that a
 * change would let slip in. The new token's secret is in `account.createToken`'s answer only.
 */
import { z } from "zod";
import type { createApiToken, revokeApiToken } from "../auth/api-tokens.ts";
import type { changeOwnPassword } from "../auth/change-password.ts";
import { ROLES } from "../../lib/contracts/roles.ts";
import type { DeactivationResult } from "../auth/user-deactivation.ts";
import type {
  createUserWithPassword,
  listAllTokens,
  listAuditEvents,
  listOwnTokens,
  listUsers,
  setUserPassword,
  setUserRoles,
  signInOptions,
} from "../auth/users.ts";
import { count, json } from "./output-schemas-shared.ts";

type Result<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

const role = z.enum(ROLES);

/** `account.signInOptions`: what the sign-in page offers. */
export const signInOptionsOutput: z.ZodType<Result<typeof signInOptions>> = z.strictObject({
  password: z.boolean(),
  signUp: z.boolean(),
  oidc: z.strictObject({ providerId: z.string(), name: z.string() }).nullable(),
  firstUser: z.boolean(),
});

/** `account.me`: the caller (name = the actor on their actions) and how they are signed in. */
export const meOutput = z.strictObject({
  userId: z.string().nullable(),
  name: z.string(),
  email: z.string().nullable(),
  roles: z.array(role),
  via: z.enum(["session", "token"]),
});

/** `account.session`: `me`, or null when signed out. */
export const sessionOutput = meOutput.nullable();

const tokenShape = {
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  roles: z.array(z.string()),
  userId: z.string().nullable(),
  createdAt: z.date(),
  expiresAt: z.date(),
  revokedAt: z.date().nullable(),
  lastUsedAt: z.date().nullable(),
};

/** `account.tokens`: the caller's API tokens (never the secret or its hash). */
export const ownTokensOutput: z.ZodType<Result<typeof listOwnTokens>> = z.array(z.strictObject(tokenShape));

/** `account.createToken`: the new token with its secret — in this answer only. */
export const createTokenOutput: z.ZodType<Result<typeof createApiToken>> = z.strictObject({
  id: z.string(),
  token: z.string(),
  prefix: z.string(),
  name: z.string(),
  roles: z.array(role),
  expiresAt: z.date(),
});

/** `account.changePassword`: how many of the caller's other sessions ended. */
export const changePasswordOutput: z.ZodType<Result<typeof changeOwnPassword>> = z.strictObject({ sessionsEnded: count });

/** `account.revokeToken`. */
export const revokeTokenOutput: z.ZodType<Result<typeof revokeApiToken>> = z.strictObject({ id: z.string(), revokedAt: z.date() });

/** `admin.users`: every user with roles, sign-in methods and deactivation. */
export const usersOutput: z.ZodType<Result<typeof listUsers>> = z.array(
  z.strictObject({
    id: z.string(),
    name: z.string(),
    email: z.string(),
    roles: z.array(role),
    signIn: z.array(z.string()),
    createdAt: z.date(),
    deactivatedAt: z.date().nullable(),
  }),
);

const userRef = { id: z.string(), name: z.string(), email: z.string(), roles: z.array(z.string()) };
/** `admin.setRoles`: the user with their roles now. */
export const setRolesOutput: z.ZodType<Result<typeof setUserRoles>> = z.strictObject(userRef);
/** `admin.createUser`: the user created. */
export const createUserOutput: z.ZodType<Result<typeof createUserWithPassword>> = z.strictObject(userRef);

/** `admin.setPassword`: the sessions ended and tokens revoked with it. */
export const setPasswordOutput: z.ZodType<Result<typeof setUserPassword>> = z.strictObject({ userId: z.string(), sessionsEnded: count, tokensRevoked: count });

/** `admin.deactivate`, `admin.reactivate`. */
export const deactivationOutput: z.ZodType<DeactivationResult> = z.strictObject({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  deactivatedAt: z.date().nullable(),
  sessionsEnded: count,
});

/** `admin.tokens`: every API token with its owner's name (never the secret or its hash). */
export const allTokensOutput: z.ZodType<Result<typeof listAllTokens>> = z.array(
  z.strictObject({ ...tokenShape, user: z.strictObject({ name: z.string() }).nullable() }),
);

/** `admin.audit`: human actions, newest first, one page. */
export const auditOutput: z.ZodType<Result<typeof listAuditEvents>> = z.strictObject({
  events: z.array(
    z.strictObject({
      id: z.string(),
      at: z.date(),
      actor: z.string(),
      userId: z.string().nullable(),
      via: z.string(),
      action: z.string(),
      target: z.string().nullable(),
      taskId: z.string().nullable(),
      details: json,
    }),
  ),
  nextCursor: z.string().nullable(),
});

import { idField, inputObject } from "../../domain/input-fields.ts";
import {
  auditListInputSchema,
  createUserInputSchema,
  createUserWithPassword,
  listAllTokens,
  listAuditEvents,
  listUsers,
  roleListSchema,
  setPasswordInputSchema,
  setUserPassword,
  setUserRoles,
} from "../../auth/users.ts";
import { setUserDeactivated } from "../../auth/user-deactivation.ts";
import {
  allTokensOutput,
  auditOutput,
  createUserOutput,
  deactivationOutput,
  setPasswordOutput,
  setRolesOutput,
  usersOutput,
} from "../output-schemas-account.ts";
import { adminProcedure, createTRPCRouter } from "../trpc.ts";

const userId = idField("userId");

/** Users, roles, tokens and the audit log: admin only. */
export const adminRouter = createTRPCRouter({
  users: adminProcedure.output(usersOutput).query(({ ctx }) => listUsers({ prisma: ctx.prisma })),
  /** Replaces a user's roles; the last admin keeps admin (CONFLICT). */
  setRoles: adminProcedure
    .input(inputObject({ userId, roles: roleListSchema }))
    .output(setRolesOutput)
    .mutation(({ ctx, input }) => setUserRoles({ prisma: ctx.prisma, userId: input.userId, roles: input.roles })),
  createUser: adminProcedure
    .input(createUserInputSchema)
    .output(createUserOutput)
    .mutation(({ ctx, input }) => createUserWithPassword({ prisma: ctx.prisma, input })),
  /** Sets a user's password (reset without email) and ends their sessions; audited without the password. */
  setPassword: adminProcedure
    .input(setPasswordInputSchema)
    .output(setPasswordOutput)
    .mutation(({ ctx, input }) => setUserPassword({ prisma: ctx.prisma, input })),
  /**
   * Deactivates a user: no sign-in, sessions ended at once, API tokens refused, no escalation email.
   * Not oneself, not the last active admin (CONFLICT naming why). Audited, naming the user.
   */
  deactivate: adminProcedure
    .input(inputObject({ userId }))
    .output(deactivationOutput)
    .mutation(({ ctx, input }) => setUserDeactivated({ prisma: ctx.prisma, userId: input.userId, deactivate: true, actorUserId: ctx.principal.userId })),
  /** Reactivates a deactivated user (their API tokens work again; they sign in anew). Audited, naming the user. */
  reactivate: adminProcedure
    .input(inputObject({ userId }))
    .output(deactivationOutput)
    .mutation(({ ctx, input }) => setUserDeactivated({ prisma: ctx.prisma, userId: input.userId, deactivate: false, actorUserId: ctx.principal.userId })),
  /** Every API token (never the secret or its hash), newest first, with its owner. */
  tokens: adminProcedure.output(allTokensOutput).query(({ ctx }) => listAllTokens({ prisma: ctx.prisma })),
  /** Human actions, newest first; filter by actor, action prefix, task. */
  audit: adminProcedure
    .input(auditListInputSchema.default({ limit: 100 }))
    .output(auditOutput)
    .query(({ ctx, input }) => listAuditEvents({ prisma: ctx.prisma, input })),
});

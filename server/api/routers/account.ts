import { z } from "zod";
import { idField, inputObject, textField } from "../../domain/input-fields.ts";
import { createApiToken, revokeApiToken, TOKEN_MAX_DAYS } from "../../auth/api-tokens.ts";
import { listOwnTokens, roleListSchema, signInOptions } from "../../auth/users.ts";
import { changeOwnPassword, changePasswordInputSchema } from "../../auth/change-password.ts";
import { AppError } from "../../errors.ts";
import type { Principal } from "../../auth/principal.ts";
import {
  changePasswordOutput,
  createTokenOutput,
  meOutput,
  ownTokensOutput,
  revokeTokenOutput,
  sessionOutput,
  signInOptionsOutput,
} from "../output-schemas-account.ts";
import { createTRPCRouter, publicProcedure, sessionProcedure, signedInProcedure } from "../trpc.ts";

export const createTokenInputSchema = inputObject({
  name: textField("name", 100).refine((v) => v.length > 0, "name: required"),
  /** Default: all of the caller's roles. */
  roles: roleListSchema.optional(),
  expiresInDays: z
    .number("expiresInDays: a whole number")
    .int("expiresInDays: a whole number")
    .min(1, "expiresInDays: at least 1")
    .max(TOKEN_MAX_DAYS, `expiresInDays: at most ${TOKEN_MAX_DAYS}`)
    .default(30),
});

/** One's own account: who am I, and my API tokens. */
/** What account.me and account.session say of the caller: name (the actor on their actions), email, roles, and how they are signed in. */
function meOf(p: Principal) {
  return { userId: p.userId, name: p.name, email: p.email, roles: p.roles, via: p.via };
}

export const accountRouter = createTRPCRouter({
  /** What the sign-in page offers (no sign-in needed): see {@link signInOptions}. */
  signInOptions: publicProcedure.output(signInOptionsOutput).query(({ ctx }) => signInOptions({ prisma: ctx.prisma })),
  /** The caller: name (the actor recorded on their actions), email, roles, and how they are signed in. */
  me: signedInProcedure.output(meOutput).query(({ ctx }) => meOf(ctx.principal)),
  /**
   * The caller as `me` gives it, or null when signed out — answered 200 either way (no sign-in
   * needed), so the app's pages can ask who is signed in without a 401 in the browser's console on a
   * signed-out visit ("no console errors on a normal visit"). `me` keeps its 401 for programs.
   */
  session: sessionProcedure.output(sessionOutput).query(({ ctx }) => (ctx.principal ? meOf(ctx.principal) : null)),
  tokens: signedInProcedure.output(ownTokensOutput).query(({ ctx }) => listOwnTokens({ prisma: ctx.prisma, userId: ctx.principal.userId })),
  /**
   * A new API token for the caller (`Authorization: Bearer <token>`; the CLI's LONGHAUL_TOKEN),
   * acting with `roles` (a subset of the caller's; default all of them), valid `expiresInDays`.
   * The token is in the answer once and never again (only its hash is stored).
   */
  createToken: signedInProcedure
    .input(createTokenInputSchema)
    .output(createTokenOutput)
    .mutation(({ ctx, input }) => {
      const p = ctx.principal;
      if (!p.userId || p.via !== "session")
        throw new AppError("FORBIDDEN", "tokens are created from a signed-in session (npm run cli -- login), not with another token");
      const roles = input.roles ?? p.roles;
      const extra = roles.filter((r) => !p.roles.includes(r));
      if (extra.length) throw new AppError("FORBIDDEN", `roles: you do not hold ${extra.join(", ")}, so a token of yours cannot either`);
      return createApiToken({ prisma: ctx.prisma, userId: p.userId, name: input.name, roles, days: input.expiresInDays });
    }),
  /**
   * The caller changes their own password (the current one required; 8–128 characters, lib/contracts/limits.ts, a 400
   * naming the field and the limit). Their other sessions end; this one stays. Audited without
   * either password. Only from a signed-in session (not with an API token).
   */
  changePassword: signedInProcedure
    .input(changePasswordInputSchema)
    .output(changePasswordOutput)
    .mutation(({ ctx, input }) => {
      const p = ctx.principal;
      if (!p.userId || p.via !== "session" || !p.sessionId)
        throw new AppError("FORBIDDEN", "a password is changed from a signed-in session (the /account page), not with an API token");
      return changeOwnPassword({ prisma: ctx.prisma, userId: p.userId, keepSessionId: p.sessionId, input });
    }),
  revokeToken: signedInProcedure
    .input(inputObject({ tokenId: idField("tokenId") }))
    .output(revokeTokenOutput)
    .mutation(({ ctx, input }) =>
      revokeApiToken({ prisma: ctx.prisma, tokenId: input.tokenId, userId: ctx.principal.userId, asAdmin: ctx.principal.roles.includes("admin") }),
    ),
});

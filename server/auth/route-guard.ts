import { databaseUnavailableMessage } from "../db/db-errors.ts";
import { prisma } from "../db/prisma.ts";
import { identify, type Principal } from "./principal.ts";
import { hasAnyRole, needsRoleMessage, READ_ROLES, type Role } from "../../lib/contracts/roles.ts";
import { sessionUser } from "./session.ts";

/**
 * For route handlers (artifacts, live updates, health details, exports): the caller's principal when
 * signed in (session or API token) with one of `roles` (none = any role); otherwise a JSON Response
 * to return — 503 `{error}` when the session could not be read because the database is unavailable,
 * 401 `{error}` when not signed in (or the token is refused, saying why), 403 `{error, needs}` naming
 * the role it needs.
 */
export async function requireRole(request: Request, roles: readonly Role[] = [], what?: string): Promise<Principal | Response> {
  const identity = await identify({ prisma: prisma(), headers: request.headers, getSessionUser: sessionUser });
  if (!identity.principal && identity.unavailable) return Response.json({ error: databaseUnavailableMessage(identity.unavailable) }, { status: 503 });
  if (!identity.principal)
    return Response.json({ error: identity.problem ?? "sign in first (or send an API token: Authorization: Bearer lh_…)" }, { status: 401 });
  if (!hasAnyRole(identity.principal.roles, roles))
    return Response.json({ error: needsRoleMessage(roles, what), needs: roles.length ? roles : READ_ROLES }, { status: 403 });
  return identity.principal;
}

/** The caller's principal, or null (no refusal): for answers that only add detail when signed in. */
export async function optionalPrincipal(request: Request): Promise<Principal | null> {
  return (await identify({ prisma: prisma(), headers: request.headers, getSessionUser: sessionUser }).catch(() => null))?.principal ?? null;
}

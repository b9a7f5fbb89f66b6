import type { Principal } from "../../server/auth/principal.ts";
import { ROLES, type Role } from "../../lib/contracts/roles.ts";

/**
 * A signed-in caller for in-process tRPC callers (`createCaller({ prisma, actor, principal })`):
 * by default every role, as the first user of a fresh install has. Tests of the role rules
 * themselves (auth-http.test.ts) sign in for real instead.
 */
export function testPrincipal(name: string, roles: readonly Role[] = ROLES): Principal {
  return { userId: null, name, email: null, roles: [...roles], via: "token" };
}

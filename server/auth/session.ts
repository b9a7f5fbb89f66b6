import { auth } from "./auth.ts";

/**
 * The signed-in user of a request's session cookie (better-auth, validated against the session
 * table) with that session's id (so an action can keep it while ending the user's others), or null.
 */
export async function sessionUser(headers: Headers): Promise<{ id: string; sessionId: string } | null> {
  const cookie = headers.get("cookie");
  if (!cookie || !cookie.includes("session_token")) return null;
  const session = await auth().api.getSession({ headers });
  return session?.user ? { id: session.user.id, sessionId: session.session.id } : null;
}

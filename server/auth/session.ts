import { auth } from "./auth.ts";

/** The signed-in user of a request's session cookie (better-auth, validated against the session table), or null. */
export async function sessionUser(headers: Headers): Promise<{ id: string } | null> {
  const cookie = headers.get("cookie");
  if (!cookie || !cookie.includes("session_token")) return null;
  const session = await auth().api.getSession({ headers });
  return session?.user ? { id: session.user.id } : null;
}

import { toNextJsHandler } from "better-auth/next-js";
import { auth } from "@/server/auth/auth.ts";

export const dynamic = "force-dynamic";

// better-auth's routes: /api/auth/sign-up/email, /sign-in/email, /sign-out, /get-session,
// /sign-in/oauth2 and /oauth2/callback/oidc (when OIDC_* is configured). Its own origin check
// (trustedOrigins) guards these against cross-site posts.
const handler = (request: Request) => {
  const { GET, POST } = toNextJsHandler(auth());
  return request.method === "GET" ? GET(request) : POST(request);
};

export { handler as GET, handler as POST };

/**
 * Calls the app's real route handlers (app/api/auth, app/api/trpc) in-process, as a browser or the
 * CLI would over HTTP at `app` (the origin the requests claim; BETTER_AUTH_URL must be the same).
 * Set DATABASE_URL, BETTER_AUTH_SECRET and BETTER_AUTH_URL before the first call: the routes are
 * imported then.
 */
export function httpApp(app: string) {
  let routes: Promise<[typeof import("../../app/api/auth/[...all]/route.ts"), typeof import("../../app/api/trpc/[trpc]/route.ts")]> | null = null;
  const load = () => (routes ??= Promise.all([import("../../app/api/auth/[...all]/route.ts"), import("../../app/api/trpc/[trpc]/route.ts")]));

  /** POSTs JSON to a better-auth route; returns the status, the session cookie it set (name=value) and the body. */
  async function authPost(path: string, body: unknown, headers: Record<string, string> = {}) {
    const [authRoute] = await load();
    const res = await authRoute.POST(
      new Request(`${app}/api/auth${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: app, ...headers },
        body: JSON.stringify(body),
      }),
    );
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    return { status: res.status, cookie, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  }

  /** Calls one tRPC procedure (superjson envelope; a mutation from `app`'s origin); returns status, data and error message. */
  async function trpc(kind: "query" | "mutation", path: string, input: unknown, headers: Record<string, string> = {}) {
    const [, trpcRoute] = await load();
    const url = kind === "query" ? `${app}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify({ json: input }))}` : `${app}/api/trpc/${path}`;
    const req = new Request(url, {
      method: kind === "query" ? "GET" : "POST",
      headers: { "content-type": "application/json", ...(kind === "mutation" ? { origin: app } : {}), ...headers },
      ...(kind === "mutation" ? { body: JSON.stringify({ json: input }) } : {}),
    });
    const res = await (kind === "query" ? trpcRoute.GET(req) : trpcRoute.POST(req));
    const json = (await res.json()) as { result?: { data?: { json?: unknown } }; error?: { json?: { message?: string } } };
    return { status: res.status, data: json.result?.data?.json as Record<string, unknown> | undefined, message: json.error?.json?.message ?? null };
  }

  return { authPost, trpc };
}

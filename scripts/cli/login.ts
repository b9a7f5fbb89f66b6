/**
 * `login`: signs in with email and password and creates an API token for this CLI, printed once
 * (`export LONGHAUL_TOKEN=…`). The password comes from --password, LONGHAUL_PASSWORD or stdin.
 */
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../../server/api/root.ts";
import { UsageError, type FlagValues } from "../lib/cli-args.ts";
import { baseUrl, PROGRAM, timedFetch } from "./client.ts";
import type { CliCommand } from "./command.ts";

/** Reads all of stdin (a password piped in, or typed and ended with Ctrl-D), trimmed of the final newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/**
 * Signs in at better-auth's /api/auth/sign-in/email, creates a token with the session
 * (account.createToken), signs the session out again. Returns `{token, id, roles, expiresAt}`.
 * @throws UsageError without --email; Error when the sign-in is refused.
 */
async function login(values: FlagValues) {
  const email = typeof values.email === "string" ? values.email : undefined;
  if (!email) throw new UsageError(["--email: required"], "login");
  if (process.stdin.isTTY && typeof values.password !== "string" && !process.env.LONGHAUL_PASSWORD) process.stderr.write("password (then Enter and Ctrl-D): ");
  const password = typeof values.password === "string" ? values.password : (process.env.LONGHAUL_PASSWORD ?? (await readStdin()));
  const res = await timedFetch(`${baseUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, password }),
  });
  if (!res.ok) throw new Error(`sign-in refused (${res.status}): ${((await res.json().catch(() => ({}))) as { message?: string }).message ?? res.statusText}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const session = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: `${baseUrl}/api/trpc`, transformer: superjson, fetch: timedFetch, headers: () => ({ cookie, origin: baseUrl }) })],
  });
  const roles =
    typeof values.roles === "string"
      ? values.roles
          .split(",")
          .map((r) => r.trim())
          .filter(Boolean)
      : undefined;
  const created = await session.account.createToken.mutate({
    name: typeof values.name === "string" ? values.name : `cli@${(await import("node:os")).hostname()}`,
    ...(roles ? { roles: roles as ("operator" | "handler" | "manager" | "admin")[] } : {}),
    ...(typeof values.days === "number" ? { expiresInDays: values.days } : {}),
  });
  await timedFetch(`${baseUrl}/api/auth/sign-out`, {
    method: "POST",
    headers: { cookie, origin: baseUrl, "content-type": "application/json" },
    body: "{}",
  }).catch(() => undefined);
  process.stderr.write(
    `token "${created.name}" created (roles ${created.roles.join(", ")}, expires ${created.expiresAt.toISOString()}); it is shown once:\n  export LONGHAUL_TOKEN=${created.token}\n`,
  );
  return { token: created.token, id: created.id, roles: created.roles, expiresAt: created.expiresAt.toISOString() };
}

export const LOGIN: CliCommand = {
  spec: {
    name: "login",
    summary: "Sign in with email and password and create an API token for this CLI (printed once: export LONGHAUL_TOKEN=…).",
    flags: {
      email: { type: "string", value: "<email>", description: "your account's email" },
      password: { type: "string", value: "<password>", description: "your password (default: read from stdin, or LONGHAUL_PASSWORD)" },
      days: { type: "string", value: "<n>", description: "days until the token expires (default 30)", int: { min: 1, max: 366 } },
      roles: { type: "string", value: "<a,b>", description: "roles the token acts with (default: all of yours)" },
      name: { type: "string", value: "<text>", description: "the token's name (default cli@<host>)" },
    },
    examples: [
      `${PROGRAM} login --email ada@example.com`,
      `LONGHAUL_URL=https://longhaul.example.com ${PROGRAM} login --email ada@example.com --roles operator --days 7`,
    ],
  },
  run: login,
};

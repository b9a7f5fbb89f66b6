/**
 * A stand-in for the web app's tRPC API for CLI tests: answers each procedure of an httpBatchLink
 * request with `answers[procedure]` (superjson, as the app does), or never answers when `answers`
 * is "hang" (a frozen database). Not a test file: imported by tests/unit/cli-*.test.ts.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import superjson from "superjson";
import { childNodeArgs } from "../support/child-bundles.ts";

/**
 * An answer of the stand-in that is an error, shaped as the app's errorFormatter makes it
 * (server/api/trpc.ts): tRPC `code` (e.g. "BAD_REQUEST"), HTTP status, our AppError code, message.
 */
export class FakeError {
  constructor(readonly error: { code: string; httpStatus: number; message: string; appCode?: string | null }) {}
}

/** One procedure call the stand-in received: its name and its input (superjson-decoded). */
export interface FakeCall {
  procedure: string;
  input: unknown;
}

/** Starts the stand-in on a free port; resolves to its URL, the calls it received, and a close function. */
export async function fakeApi(answers: Record<string, unknown> | "hang"): Promise<{ url: string; calls: FakeCall[]; close: () => Promise<void> }> {
  const calls: FakeCall[] = [];
  const server: Server = createServer((req, res) => {
    if (answers === "hang") return;
    const url = new URL(req.url ?? "/", "http://x");
    const names = decodeURIComponent(url.pathname.replace(/^\/api\/trpc\//, "")).split(",");
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString("utf8")));
    req.on("end", () => {
      // httpBatchLink: queries carry `?input={"0": …}`, mutations a JSON body of the same shape.
      const raw = (req.method === "GET" ? url.searchParams.get("input") : body) || "{}";
      const inputs = JSON.parse(raw) as Record<string, unknown>;
      names.forEach((n, i) => {
        const input = inputs[String(i)];
        calls.push({ procedure: n, input: input === undefined ? undefined : superjson.deserialize(input as Parameters<typeof superjson.deserialize>[0]) });
      });
      const answer = names.map((n) => {
        const a = answers[n];
        if (a instanceof FakeError)
          return {
            error: superjson.serialize({
              message: a.error.message,
              code: -32600,
              data: { code: a.error.code, httpStatus: a.error.httpStatus, appCode: a.error.appCode ?? null, path: n },
            }),
          };
        return { result: { data: superjson.serialize(a ?? null) } };
      });
      const status = answer.every((a) => "error" in a) && answers[names[0]!] instanceof FakeError ? (answers[names[0]!] as FakeError).error.httpStatus : 200;
      res.statusCode = names.length > 1 ? 207 : status;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Runs the CLI against `url` without blocking this process (the stand-in must answer); resolves to its exit code and output. */
export function runCli(url: string, args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...childNodeArgs("scripts/cli.ts"), ...args], {
      env: { ...process.env, LONGHAUL_URL: url, LONGHAUL_TOKEN: "lh_unused", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

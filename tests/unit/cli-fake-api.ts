/**
 * A stand-in for the web app's tRPC API for CLI tests: answers each procedure of an httpBatchLink
 * request with `answers[procedure]` (superjson, as the app does), or never answers when `answers`
 * is "hang" (a frozen database). Not a test file: imported by tests/unit/cli-*.test.ts.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import path from "node:path";
import superjson from "superjson";

/** Starts the stand-in on a free port; resolves to its URL and a close function. */
export async function fakeApi(answers: Record<string, unknown> | "hang"): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (answers === "hang") return;
    const names = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.replace(/^\/api\/trpc\//, "")).split(",");
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(names.map((n) => ({ result: { data: superjson.serialize(answers[n] ?? null) } }))));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
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
    const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../scripts/cli.ts"), ...args], {
      env: { ...process.env, LONGHAUL_URL: url, LONGHAUL_TOKEN: "lh_unused", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

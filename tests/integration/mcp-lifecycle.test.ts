import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";

// stdio MCP servers stop with Longhaul: a process that owns MCP clients
// (tests/integration/mcp-lifecycle-child.ts, over server/tools/mcp/runtime.ts) starts the real
// memory server from npm (run as `node --import tsx`, so the signal reaches that very process); after SIGTERM, SIGINT or kill -9 of that process, the server's pid is gone.

const childScript = path.join(import.meta.dirname, "mcp-lifecycle-child.ts");
const dir = mkdtempSync(path.join(tmpdir(), "longhaul-mcp-life-"));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone or `ms` passed; true when it is gone. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

/** Starts the owner process; resolves with it and the MCP server's pid once the server is up. */
async function startOwner(
  mode?: string,
): Promise<{ owner: ChildProcessByStdio<null, Readable, Readable>; serverPid: number; exited: Promise<{ code: number | null; signal: string | null }> }> {
  const owner = spawn(process.execPath, ["--import", "tsx", childScript, path.join(dir, `${Math.random()}.jsonl`), ...(mode ? [mode] : [])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => owner.once("exit", (code, signal) => resolve({ code, signal })));
  let stderr = "";
  owner.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const serverPid = await new Promise<number>((resolve, reject) => {
    let out = "";
    owner.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { pid: number }).pid);
    });
    void exited.then(() => reject(new Error(`owner exited before the server started: ${stderr}`)));
  });
  return { owner, serverPid, exited };
}

describe("MCP stdio servers stop with the process that started them", () => {
  it("SIGTERM: the servers are closed, then the process ends by the signal as it would have", async () => {
    const { owner, serverPid, exited } = await startOwner();
    expect(alive(serverPid)).toBe(true);
    owner.kill("SIGTERM");
    expect(await exited).toEqual({ code: null, signal: "SIGTERM" });
    expect(await goneWithin(serverPid, 5000)).toBe(true);
  }, 60_000);

  it("SIGINT while another handler ends the process (as Next's shutdown does): no server outlives it", async () => {
    const { owner, serverPid, exited } = await startOwner("--also-handle");
    owner.kill("SIGINT");
    // Closed gracefully (stdin ended) before the other handler's exit 1 s later.
    expect(await goneWithin(serverPid, 900)).toBe(true);
    expect(await exited).toEqual({ code: 0, signal: null });
  }, 60_000);

  it("kill -9 of the owner: the server sees its stdin close and exits", async () => {
    const { owner, serverPid, exited } = await startOwner();
    owner.kill("SIGKILL");
    await exited;
    expect(await goneWithin(serverPid, 10_000)).toBe(true);
  }, 60_000);
});

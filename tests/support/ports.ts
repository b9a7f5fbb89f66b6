import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Where the ports handed out are claimed, one file per port holding the claiming process's pid: shared
 * by every process on the machine (test workers running side by side, other checkouts' runs), so a
 * port one of them owns is never handed to another while nothing listens on it (an outage test's app
 * or executor is down and comes back on the port it had).
 */
// Per user: a directory another user made would refuse this one's claim files.
const CLAIMS_DIR = join(tmpdir(), `longhaul-test-ports-${process.getuid?.() ?? "user"}`);
const claimed = new Set<number>();
let exitHookSet = false;

/**
 * Whether the claim file `name` belongs to a live process (or is being written: a claim file is
 * created empty, then its pid written, so an empty one counts as live).
 */
function claimLive(name: string): boolean {
  let text: string;
  try {
    text = readFileSync(join(CLAIMS_DIR, name), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false; // released meanwhile
    throw error;
  }
  const owner = Number(text);
  // Empty: being written right now — or left by a process killed between creating and writing it,
  // which a claim older than a few seconds must be.
  if (text === "") return Date.now() - statSync(join(CLAIMS_DIR, name)).mtimeMs < 5_000;
  return Number.isInteger(owner) && owner > 0 && alive(owner);
}

/** Whether a process with this pid is alive (signal 0 checks without signalling; EPERM means it exists under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Claims `port` for this process: true if it was unclaimed (a claim file is created exclusively; a
 * stale one, its process dead, is left to the sweep). Claims are released at exit.
 */
function claim(port: number): boolean {
  if (!exitHookSet) sweepStaleClaims();
  const file = join(CLAIMS_DIR, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
  } catch (error) {
    // Claimed — by a live process, or a stale claim the next sweep removes: never taken over here,
    // where two processes could both read it stale and one delete the other's fresh claim.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  claimed.add(port);
  if (!exitHookSet) {
    exitHookSet = true;
    process.once("exit", releaseClaims);
  }
  return true;
}

/**
 * Creates CLAIMS_DIR and removes the claims of processes that are gone (a worker killed before its
 * exit handler ran leaves its files behind; without this they would pile up run after run).
 */
function sweepStaleClaims(): void {
  mkdirSync(CLAIMS_DIR, { recursive: true });
  for (const name of readdirSync(CLAIMS_DIR)) {
    try {
      if (!claimLive(name)) rmSync(join(CLAIMS_DIR, name), { force: true });
    } catch {
      // removed meanwhile by its owner or another sweep
    }
  }
}

/** Removes this process's claim files (at exit; synchronous, as an exit handler must be). */
function releaseClaims(): void {
  for (const port of claimed) {
    try {
      if (Number(readFileSync(join(CLAIMS_DIR, String(port)), "utf8")) === process.pid) rmSync(join(CLAIMS_DIR, String(port)), { force: true });
    } catch {
      // already gone
    }
  }
  claimed.clear();
}

/** Asks the OS for a TCP port on 127.0.0.1 that is free right now (port 0: the kernel picks one). */
function osFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A free TCP port on 127.0.0.1 that no other live process has been handed by this function: the OS
 * picks a free one and it is claimed for this process's lifetime (see CLAIMS_DIR), so a test may stop
 * the server on it and start it again on the same port while other test files run beside it. Throws
 * after 50 picks that were all claimed.
 */
export async function freePort(): Promise<number> {
  for (let pick = 0; pick < 50; pick++) {
    const port = await osFreePort();
    if (claimed.has(port)) continue;
    if (claim(port)) return port;
  }
  throw new Error(`no unclaimed free port after 50 picks (claims in ${CLAIMS_DIR})`);
}

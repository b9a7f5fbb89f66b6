// Preloaded into every process `npm start` supervises (NODE_OPTIONS=--require …): when the
// supervisor named by LONGHAUL_SUPERVISOR_PID is gone — killed with -9, so it could not stop its
// children — this process stops itself (SIGTERM, its own graceful shutdown) instead of living on
// as an orphan that holds the ports and the database. Checks every 2 s; never keeps a process alive.
"use strict";
const supervisor = Number(process.env.LONGHAUL_SUPERVISOR_PID);
if (Number.isInteger(supervisor) && supervisor > 1 && supervisor !== process.pid) {
  const timer = setInterval(() => {
    try {
      process.kill(supervisor, 0);
    } catch {
      clearInterval(timer);
      process.stderr.write(`[longhaul] supervisor ${supervisor} is gone: stopping ${process.pid}\n`);
      process.kill(process.pid, "SIGTERM");
      setTimeout(() => process.exit(1), 10_000).unref();
    }
  }, 2_000);
  timer.unref();
}

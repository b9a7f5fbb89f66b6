/**
 * `npm test`: typecheck, lint, format (Prettier --check), boundaries (dependency-cruiser, .dependency-cruiser.cjs), unit,
 * integration, build, end-to-end — in that order (cheapest
 * first), stopping at the first failure. Each stage starts what it needs and leaves nothing running.
 * `npm test -- --skip=e2e,lint` skips stages (for local loops; CI runs everything).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const skip = new Set(
  process.argv
    .slice(2)
    .filter((a) => a.startsWith("--skip="))
    .flatMap((a) => a.slice(7).split(",")),
);
const bin = (name: string) => resolve(root, "node_modules/.bin", name);
/** What `npm run boundaries` runs (keep the two in step). */
const BOUNDARY_ARGS = [
  "--config",
  ".dependency-cruiser.cjs",
  "--output-type",
  "err",
  "app",
  "components",
  "lib",
  "server",
  "scripts",
  "tests",
  "instrumentation.ts",
];

const stages: { name: string; cmd: string; args: string[] }[] = [
  { name: "typecheck", cmd: bin("tsc"), args: ["--noEmit", "-p", "."] },
  { name: "lint", cmd: bin("eslint"), args: ["--max-warnings=0", "."] },
  { name: "format", cmd: bin("prettier"), args: ["--check", "--log-level=warn", "."] },
  { name: "boundaries", cmd: bin("depcruise"), args: [...BOUNDARY_ARGS] },
  { name: "unit", cmd: bin("vitest"), args: ["run", "--project", "unit"] },
  { name: "integration", cmd: bin("vitest"), args: ["run", "--project", "integration"] },
  { name: "build", cmd: bin("next"), args: ["build"] },
  { name: "e2e", cmd: bin("playwright"), args: ["test"] },
];

const results: { stage: string; ok: boolean; seconds: number }[] = [];
let failed = false;
for (const stage of stages) {
  if (skip.has(stage.name)) continue;
  process.stderr.write(`\n=== ${stage.name} ===\n`);
  const started = Date.now();
  const r = spawnSync(stage.cmd, stage.args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1", FORCE_COLOR: "0" },
  });
  const ok = r.status === 0;
  results.push({ stage: stage.name, ok, seconds: Math.round((Date.now() - started) / 100) / 10 });
  if (!ok) {
    failed = true;
    process.stderr.write(`\n✗ ${stage.name} failed (exit ${r.status ?? r.signal})\n`);
    break;
  }
}
const passed = results.filter((r) => r.ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
console.log(JSON.stringify({ ok: !failed, stages: results }));
process.exit(failed ? 1 : 0);

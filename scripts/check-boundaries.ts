/**
 * `npm run boundaries` (a stage of `npm test` and of `npm run check`): the layer rules of
 * .dependency-cruiser.cjs, then no cycle among folders (scripts/lib/folder-cycles.ts), from one run
 * of dependency-cruiser. The rules' violations print as dependency-cruiser's `err` reporter prints
 * them; a folder cycle prints its folders, one cycle through them and the imports behind each edge.
 * Exits 1 when either finds something, 2 when dependency-cruiser itself fails.
 */
import "./lib/runtime.ts";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { format, type ICruiseResult } from "dependency-cruiser";
import { describeFolderCycles, FOLDER_CYCLE_ROOTS, folderCycles } from "./lib/folder-cycles.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

parseScriptArgs(
  defineScript({
    program: "npm run boundaries --",
    summary: "The layer rules of .dependency-cruiser.cjs, then no cycle among folders. Exit 1 on a finding, 2 when dependency-cruiser fails.",
    flags: {},
    examples: ["npm run boundaries"],
  }),
);

const root = resolve(import.meta.dirname, "..");
/** What is cruised: everything with imports (the rules say which parts they apply to). */
const BOUNDARY_ROOTS = ["app", "components", "lib", "server", "scripts", "tests", "instrumentation.ts"];

const run = spawnSync(resolve(root, "node_modules/.bin/depcruise"), ["--config", ".dependency-cruiser.cjs", "--output-type", "json", ...BOUNDARY_ROOTS], {
  cwd: root,
  encoding: "utf8",
  maxBuffer: 512 * 1024 * 1024,
});
if (run.status !== 0 || !run.stdout) {
  process.stderr.write(`dependency-cruiser failed (exit ${run.status ?? run.signal}):\n${run.stderr}${run.error ? String(run.error) : ""}\n`);
  process.exit(2);
}
const result = JSON.parse(run.stdout) as ICruiseResult;

const rules = await format(result, { outputType: "err" });
process.stdout.write(typeof rules.output === "string" ? rules.output : "");

const cycles = folderCycles(result.modules);
const where = FOLDER_CYCLE_ROOTS.map((r) => `${r}/`).join(", ");
if (cycles.length > 0) {
  process.stdout.write(
    `\n${describeFolderCycles(cycles)}\n\n` +
      `✘ ${cycles.length} cycle(s) of folders under ${where}: move the value that goes the wrong way ` +
      'to the folder that owns it, the lower layer (docs/ARCHITECTURE.md "Layers").\n',
  );
} else {
  process.stdout.write(`✔ no cycle of folders under ${where} (value imports)\n`);
}
process.exit(rules.exitCode > 0 || cycles.length > 0 ? 1 : 0);

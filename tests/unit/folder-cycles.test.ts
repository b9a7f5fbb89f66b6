import { describe, expect, it } from "vitest";
import { describeFolderCycles, folderCycles, folderOf, type CruisedModule } from "../../scripts/lib/folder-cycles.ts";

// Modules as dependency-cruiser's JSON result lists them (source, dependencies with resolved and
// dependencyTypes); `type` marks an `import type`.
function graph(edges: readonly (readonly [from: string, to: string, kind?: "type"])[]): CruisedModule[] {
  const modules = new Map<string, CruisedModule & { dependencies: { resolved: string; dependencyTypes: string[] }[] }>();
  const mod = (source: string) => modules.get(source) ?? modules.set(source, { source, dependencies: [] }).get(source)!;
  for (const [from, to, kind] of edges) {
    mod(to);
    mod(from).dependencies.push({ resolved: to, dependencyTypes: kind === "type" ? ["local", "type-only", "import"] : ["local", "import"] });
  }
  return [...modules.values()];
}

describe("folder cycles", () => {
  it("a folder is the file's directory cut at two levels", () => {
    expect(folderOf("server/env.ts")).toBe("server");
    expect(folderOf("server/llm/adapters/chat.ts")).toBe("server/llm");
    expect(folderOf("app/api/artifacts/[id]/route.ts")).toBe("app/api");
    expect(folderOf("lib/contracts/roles.ts")).toBe("lib/contracts");
  });

  it("two folders importing each other's values are a cycle, named with the imports on both sides", () => {
    const cycles = folderCycles(
      graph([
        ["server/domain/profile-spec.ts", "server/auth/roles.ts"],
        ["server/auth/users.ts", "server/domain/input-fields.ts"],
        ["server/auth/users.ts", "lib/contracts/limits.ts"],
      ]),
    );
    expect(cycles).toEqual([
      {
        folders: ["server/auth", "server/domain"],
        path: ["server/auth", "server/domain", "server/auth"],
        edges: [
          { from: "server/auth", to: "server/domain", imports: [{ from: "server/auth/users.ts", to: "server/domain/input-fields.ts" }] },
          { from: "server/domain", to: "server/auth", imports: [{ from: "server/domain/profile-spec.ts", to: "server/auth/roles.ts" }] },
        ],
      },
    ]);
    const text = describeFolderCycles(cycles);
    expect(text).toContain("error no-folder-cycle: 2 folders import each other's values: server/auth, server/domain");
    expect(text).toContain("server/domain → server/auth (1): server/domain/profile-spec.ts → server/auth/roles.ts");
    expect(text).toContain("server/auth → server/domain (1): server/auth/users.ts → server/domain/input-fields.ts");
  });

  it("a cycle through three folders and the server's own files is found, with one shortest cycle", () => {
    const cycles = folderCycles(
      graph([
        ["server/env.ts", "server/domain/egress-policy.ts"],
        ["server/domain/agent-loop/reasons.ts", "server/llm/errors.ts"],
        ["server/llm/provider.ts", "server/env.ts"],
      ]),
    );
    expect(cycles.map((c) => [c.folders, c.path])).toEqual([
      [
        ["server", "server/domain", "server/llm"],
        ["server", "server/domain", "server/llm", "server"],
      ],
    ]);
  });

  it("type-only imports do not close a cycle (they are erased before the code runs)", () => {
    const edges = [
      ["server/db/agent-ports.ts", "server/agent/ports.ts", "type"],
      ["server/agent/model-step.ts", "server/db/prisma.ts"],
    ] as const;
    expect(folderCycles(graph(edges))).toEqual([]);
    // The same imports as values are a cycle: the check reads the kind, not just the edge.
    expect(folderCycles(graph(edges.map(([from, to]) => [from, to] as const)))).toHaveLength(1);
  });

  it("a feature's sub-folders are part of it, and folders outside server/, lib/ and app/ are not checked", () => {
    const cycles = folderCycles(
      graph([
        ["server/llm/provider.ts", "server/llm/adapters/chat.ts"],
        ["server/llm/adapters/chat.ts", "server/llm/tokens.ts"],
        ["components/trpc.tsx", "components/auth/signed-out.tsx"],
        ["components/auth/use-me.ts", "components/trpc.tsx"],
      ]),
    );
    expect(cycles).toEqual([]);
  });

  it("an acyclic layering passes: the domain over lib, adapters over the domain", () => {
    const cycles = folderCycles(
      graph([
        ["server/domain/profile-spec.ts", "lib/contracts/roles.ts"],
        ["server/llm/errors.ts", "server/domain/model-error-kinds.ts"],
        ["server/env.ts", "lib/contracts/egress.ts"],
        ["server/db/task-queries.ts", "server/domain/checkpoint.ts"],
        ["server/db/task-queries.ts", "server/errors.ts"],
        ["app/api/health/route.ts", "server/db/health.ts"],
      ]),
    );
    expect(cycles).toEqual([]);
  });
});

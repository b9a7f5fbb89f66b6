/**
 * Cycles in the graph of folders, from dependency-cruiser's JSON result (`--output-type json`,
 * ICruiseResult). dependency-cruiser forbids cycles between files (`no-circular`); this forbids them
 * between folders, which a file-level check cannot see: `server/domain/a.ts` → `server/auth/b.ts`
 * and `server/auth/c.ts` → `server/domain/d.ts` is no file cycle, yet the two folders need each other,
 * so neither can be read, tested or moved without the other and "the lower layer" means nothing.
 *
 * What counts (docs/ARCHITECTURE.md "Layers"):
 * - files under {@link FOLDER_CYCLE_SCOPE} (`server/`, `lib/`, `app/`); components and pages are
 *   above the server and import it only as types, tests and scripts are above everything;
 * - a file's folder is its directory cut at two levels ({@link folderOf}): `server/llm/adapters/chat.ts`
 *   belongs to `server/llm`, `server/env.ts` to `server`. Below that a folder is a part of one feature
 *   (the provider's wire formats, the API's routers): the parent composes its parts and the parts
 *   use the parent's helpers, and the file-level rule still forbids a cycle among the files;
 * - value imports only ({@link isRuntimeImport}): an `import type` is erased before the code runs
 *   (tsconfig's verbatimModuleSyntax keeps every other import), so the db may implement a port
 *   whose type the agent layer declares. Re-exports and dynamic `import()` are value imports.
 */
import { posix } from "node:path";

/** The part of one module of dependency-cruiser's result this check reads. */
export interface CruisedModule {
  source: string;
  dependencies: readonly { resolved: string; dependencyTypes: readonly string[] }[];
}

/** One import behind a folder edge: the file that imports and the file it imports. */
export interface FolderImport {
  from: string;
  to: string;
}

/** An edge of the folder graph and the imports that make it. */
export interface FolderEdge {
  from: string;
  to: string;
  imports: FolderImport[];
}

/**
 * A strongly connected set of folders (each reaches every other by value imports): `folders` sorted,
 * `path` one shortest cycle through the first of them (first folder repeated at the end), `edges`
 * every folder edge inside the set with its imports.
 */
export interface FolderCycle {
  folders: string[];
  path: string[];
  edges: FolderEdge[];
}

/** The top folders whose files must not form a cycle of folders: the server, the shared contracts, the app's routes. */
export const FOLDER_CYCLE_ROOTS = ["server", "lib", "app"] as const;
/** A path inside one of {@link FOLDER_CYCLE_ROOTS}. */
export const FOLDER_CYCLE_SCOPE = new RegExp(`^(${FOLDER_CYCLE_ROOTS.join("|")})/`);

/** How many directory levels name a folder of the graph (`server/llm`, `lib/contracts`, `app/api`). */
export const FOLDER_DEPTH = 2;

/** The folder `file` (a path from the repository root) belongs to: its directory, cut at {@link FOLDER_DEPTH} levels. */
export function folderOf(file: string): string {
  return posix.dirname(file).split("/").slice(0, FOLDER_DEPTH).join("/");
}

/**
 * Whether an import is there when the code runs: not `import type` / `export type` (dependency-cruiser's
 * `type-only`) and not a type position `import("x").T` (`type-import`).
 */
export function isRuntimeImport(dependencyTypes: readonly string[]): boolean {
  return !dependencyTypes.includes("type-only") && !dependencyTypes.includes("type-import");
}

/** The folder graph of `modules` in `scope`: folder → folder → the imports behind the edge. */
export function folderGraph(modules: readonly CruisedModule[], scope: RegExp = FOLDER_CYCLE_SCOPE): Map<string, Map<string, FolderImport[]>> {
  const graph = new Map<string, Map<string, FolderImport[]>>();
  for (const m of modules) {
    if (!scope.test(m.source)) continue;
    const from = folderOf(m.source);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const d of m.dependencies) {
      if (!scope.test(d.resolved) || !isRuntimeImport(d.dependencyTypes)) continue;
      const to = folderOf(d.resolved);
      if (to === from) continue;
      const out = graph.get(from)!;
      const imports = out.get(to) ?? [];
      if (!imports.some((i) => i.from === m.source && i.to === d.resolved)) imports.push({ from: m.source, to: d.resolved });
      out.set(to, imports);
    }
  }
  return graph;
}

/** Strongly connected components of `graph` with more than one folder (Tarjan's algorithm). */
function components(graph: Map<string, Map<string, FolderImport[]>>): string[][] {
  const nodes = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((out) => [...out.keys()])])].sort();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** A shortest cycle from `start` back to it inside `within` (breadth-first), as a folder path. */
function shortestCycle(graph: Map<string, Map<string, FolderImport[]>>, start: string, within: Set<string>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
      if (!within.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = parent.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/**
 * Every cycle of folders among `modules` (dependency-cruiser's `modules`) in `scope`, by value
 * imports: one {@link FolderCycle} per strongly connected set, none when the folder graph is acyclic.
 */
export function folderCycles(modules: readonly CruisedModule[], scope: RegExp = FOLDER_CYCLE_SCOPE): FolderCycle[] {
  const graph = folderGraph(modules, scope);
  return components(graph).map((folders) => {
    const within = new Set(folders);
    const edges = folders.flatMap((from) =>
      [...(graph.get(from) ?? [])]
        .filter(([to]) => within.has(to))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([to, imports]) => ({ from, to, imports })),
    );
    return { folders, path: shortestCycle(graph, folders[0]!, within), edges };
  });
}

/** The imports of one edge, at most `most` of them named, then how many more. */
function importList(imports: readonly FolderImport[], most = 3): string {
  const named = imports.slice(0, most).map((i) => `${i.from} → ${i.to}`);
  return imports.length > most ? `${named.join(", ")} and ${imports.length - most} more` : named.join(", ");
}

/**
 * `cycles` as `npm run boundaries` prints them: the folders of each strongly connected set, one
 * shortest cycle with the imports behind each step, then every folder edge inside the set, fewest
 * imports first — the edge with the fewest imports is usually the one that runs the wrong way.
 */
export function describeFolderCycles(cycles: readonly FolderCycle[]): string {
  return cycles
    .map((c) => {
      const edge = (from: string, to: string) => c.edges.find((e) => e.from === from && e.to === to)!;
      const steps = c.path.slice(1).map((to, i) => edge(c.path[i]!, to));
      const byFewest = [...c.edges].sort((a, b) => a.imports.length - b.imports.length || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
      return [
        `error no-folder-cycle: ${c.folders.length} folders import each other's values: ${c.folders.join(", ")}`,
        `  a cycle: ${c.path.join(" → ")}`,
        ...steps.map((e) => `    ${e.from} → ${e.to}: ${importList(e.imports)}`),
        "  the folder edges inside, fewest imports first:",
        ...byFewest.map((e) => `    ${e.from} → ${e.to} (${e.imports.length}): ${importList(e.imports)}`),
      ].join("\n");
    })
    .join("\n\n");
}

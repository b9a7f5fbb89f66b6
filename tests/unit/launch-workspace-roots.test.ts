import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PrismaClient } from "../../server/db/client.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { launchTools } from "../../server/tools/launch-tools.ts";

// The real launch port's confinement of workspaces to allowed roots, on real folders and symlinks.
describe("workspaceAllowed", () => {
  const base = mkdtempSync(join(tmpdir(), "longhaul-roots-"));
  const root = join(base, "root");
  const inside = join(root, "project");
  const outside = join(base, "elsewhere");
  for (const d of [inside, outside]) mkdirSync(d, { recursive: true });
  symlinkSync(outside, join(root, "escape")); // a link inside the root pointing out of it
  mkdirSync(`${root}-sibling`); // shares the root's name as a prefix
  const ports = (roots: string[]) =>
    prismaLaunchPorts({ prisma: {} as PrismaClient, sendRunStarted: async () => {}, tools: launchTools, defaultWorkspace: inside, workspaceRoots: roots });

  it.each([
    ["the root itself", root, true],
    ["a folder inside", inside, true],
    ["a folder outside", outside, false],
    ["a symlink inside the root that points out of it", join(root, "escape"), false],
    ["a sibling whose name starts with the root's", `${root}-sibling`, false],
    ["a path with .. that leaves the root", join(inside, "..", "..", "elsewhere"), false],
  ])("%s → %s", async (_name, path, ok) => {
    expect((await ports([root]).workspaceAllowed(path)).ok).toBe(ok);
  });

  it("defaults to the default workspace alone, and names the roots when refusing", async () => {
    expect(await ports([]).workspaceAllowed(inside)).toEqual({ ok: true });
    expect(await ports([]).workspaceAllowed(root)).toEqual({ ok: false, roots: [inside] });
  });
});

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolSimulator, runScriptedAgent, taskMessages } from "./llm-tool-sim.ts";

// End-to-end-ish: the scripted agent's decision loop against a small fake node_modules, with a tiny
// tool simulator that pages lists (4 entries) and files (48 bytes) to exercise paging.

const GOAL = (n: number) =>
  `Audit the licenses of the first ${n} packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to audit@example.com, then finish.`;

let root: string;

function pkg(dir: string, content: string | Record<string, unknown>) {
  const full = path.join(root, "node_modules", dir);
  mkdirSync(full, { recursive: true });
  writeFileSync(path.join(full, "package.json"), typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), "llm-audit-"));
  mkdirSync(path.join(root, "node_modules", ".bin"), { recursive: true });
  writeFileSync(path.join(root, "node_modules", ".package-lock.json"), "{}");
  writeFileSync(path.join(root, "node_modules", "notes.txt"), "a stray file, not a package");
  pkg("@babel/core", {
    name: "@babel/core",
    version: "7.26.0",
    license: "MIT",
    description: "Babel compiler core, with a description long enough to need paging.",
  });
  pkg("@babel/parser", { name: "@babel/parser", version: "7.26.1", license: "MIT" });
  pkg("@types/node", { name: "@types/node", version: "20.19.0", license: "MIT" });
  pkg("@zeta/last", { name: "@zeta/last", version: "1.0.0", licenses: [{ type: "MPL-2.0" }, { type: "Apache-2.0" }] });
  pkg("Zed", { name: "Zed", version: "0.0.1", license: "BSD-3-Clause" });
  pkg("abbrev", { name: "abbrev", version: "2.0.0", license: { type: "ISC", url: "https://opensource.org/licenses/ISC" } });
  pkg("broken", '{ "name": "broken", "version": "1.0.0", "license": "MIT"');
  pkg("dual", { name: "dual", version: "3.1.0", licenses: [{ type: "MIT" }, { type: "GPL-2.0" }] });
  pkg("gpl-thing", { name: "gpl-thing", version: "2.0.0", license: "GPL-3.0-or-later" });
  pkg("has-comma", { name: "has-comma", version: "1.0.0", license: "(MIT, Apache-2.0)" });
  pkg("mpl-lib", { name: "mpl-lib", version: "1.1.0", license: "MPL-2.0" });
  pkg("no-license", { name: "no-license", version: "0.1.0" });
  mkdirSync(path.join(root, "node_modules", "no-pkgjson"), { recursive: true });
  pkg("string-width-cjs", { name: "string-width", version: "4.2.3", license: "MIT" }); // an npm alias
  pkg("zz-last", { name: "zz-last", version: "9.9.9", license: "Apache-2.0" });
  mkdirSync(path.join(root, "linked-pkg"));
  writeFileSync(path.join(root, "linked-pkg", "package.json"), JSON.stringify({ name: "linked", version: "0.0.0", license: "LGPL-2.1" }));
  symlinkSync(path.join(root, "linked-pkg"), path.join(root, "node_modules", "linked"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

// Computed by hand from the tree above: names sorted in code-point order ("@" < "Z" < "a"), the
// first 14; licenses per npm's rules; copyleft for GPL/LGPL/MPL families; RFC 4180 quoting.
const EXPECTED_14 =
  [
    "name,version,license,copyleft",
    "@babel/core,7.26.0,MIT,false",
    "@babel/parser,7.26.1,MIT,false",
    "@types/node,20.19.0,MIT,false",
    "@zeta/last,1.0.0,MPL-2.0 OR Apache-2.0,true",
    "Zed,0.0.1,BSD-3-Clause,false",
    "abbrev,2.0.0,ISC,false",
    "broken,1.0.0,UNKNOWN,false",
    "dual,3.1.0,MIT OR GPL-2.0,true",
    "gpl-thing,2.0.0,GPL-3.0-or-later,true",
    'has-comma,1.0.0,"(MIT, Apache-2.0)",false',
    "linked,0.0.0,LGPL-2.1,true",
    "mpl-lib,1.1.0,MPL-2.0,true",
    "no-license,0.1.0,UNKNOWN,false",
    "no-pkgjson,,UNKNOWN,false",
  ].join("\n") + "\n";

describe("scripted agent: license audit over a fake node_modules", () => {
  it("lists, reads, records, writes the CSV, emails and finishes", () => {
    const sim = createToolSimulator({ root, listPageCap: 4, readPageCap: 48 });
    const { turns } = runScriptedAgent({ messages: taskMessages(GOAL(14)), sim });
    expect(sim.deadEnd).toBeNull();
    expect(sim.finished).toMatch(/Audited 14 packages/);
    expect(sim.artifacts.get("licenses.csv")).toEqual({ mime: "text/csv", content: EXPECTED_14 });
    expect(sim.facts["audit:packages"]).toEqual(
      EXPECTED_14.trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(",")[0]!),
    );
    expect(sim.facts["license:dual"]).toEqual({ name: "dual", version: "3.1.0", license: "MIT OR GPL-2.0" });
    expect(sim.facts["license:broken"]).toMatchObject({ name: "broken", version: "1.0.0", license: "UNKNOWN" });
    expect(sim.emails).toHaveLength(1);
    expect(sim.emails[0]).toMatchObject({ to: "audit@example.com", subject: "License audit: 14 packages" });
    expect(sim.emails[0]!.body).toContain("Copyleft (5):");
    // several calls a turn: far fewer turns than tool calls
    expect(sim.log.length).toBeGreaterThan(turns * 2);
    // nothing beyond the first 14 was read
    expect(sim.log.some((c) => c.rawArguments.includes("zz-last"))).toBe(false);
  });

  it("records the package.json name of an npm alias, and keeps the folder name in the CSV", () => {
    const sim = createToolSimulator({ root });
    runScriptedAgent({ messages: taskMessages(GOAL(20)), sim });
    expect(sim.facts["license:string-width-cjs"]).toEqual({ name: "string-width", version: "4.2.3", license: "MIT" });
    const csv = sim.artifacts.get("licenses.csv")!.content;
    expect(csv).toContain("\nstring-width-cjs,4.2.3,MIT,false\n");
    expect(csv.trim().split("\n")).toHaveLength(17); // header + all 16 packages
  });

  it("resumes from a working set without redoing recorded packages", () => {
    const first = createToolSimulator({ root, readPageCap: 4096 });
    runScriptedAgent({ messages: taskMessages(GOAL(14)), sim: first, maxTurns: 5 });
    expect(first.finished).toBeNull();
    const recorded = Object.keys(first.facts).filter((k) => k.startsWith("license:"));
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.length).toBeLessThan(14);

    // A new segment: the transcript is replaced by the checkpoint's working set.
    const second = createToolSimulator({ root, facts: first.facts });
    runScriptedAgent({ messages: taskMessages(GOAL(14), first.facts), sim: second });
    expect(second.finished).not.toBeNull();
    expect(second.artifacts.get("licenses.csv")!.content).toBe(EXPECTED_14);
    expect(second.log.filter((c) => c.name === "list_files")).toHaveLength(0); // the package list was a fact
    const reread = second.log
      .filter((c) => c.name === "read_file")
      .map((c) => (JSON.parse(c.rawArguments) as { path: string }).path.split("/").slice(1, -1).join("/"));
    for (const key of recorded) expect(reread).not.toContain(key.slice("license:".length));
    expect(reread.length).toBe(14 - recorded.length);
  });

  it("does not re-send the email when resuming after it was sent", () => {
    const first = createToolSimulator({ root });
    runScriptedAgent({ messages: taskMessages(GOAL(3)), sim: first });
    expect(first.emails).toHaveLength(1);
    const facts = { ...first.facts };
    const second = createToolSimulator({ root, facts });
    runScriptedAgent({ messages: taskMessages(GOAL(3), facts), sim: second });
    expect(second.emails).toHaveLength(0);
    expect(second.artifacts.size).toBe(0);
    expect(second.finished).toMatch(/Audited 3 packages/);
  });

  it("retries a failed call once and carries on", () => {
    const sim = createToolSimulator({
      root,
      inject: (name, args, log) => {
        const earlier = log.filter((c) => c.name === name && c.rawArguments === JSON.stringify(args)).length;
        if (name === "read_file" && args.path === "node_modules/dual/package.json" && earlier === 0) return { error: { code: "io_error", message: "EIO" } };
        if (
          name === "record_fact" &&
          args.key === "license:abbrev" &&
          !log.some((c) => c.name === "record_fact" && c.rawArguments.includes("license:abbrev"))
        ) {
          return { error: { code: "unavailable", message: "try again" } };
        }
        if (name === "send_email" && !log.some((c) => c.name === "send_email")) return { error: { code: "smtp", message: "try later" } };
        return undefined;
      },
    });
    runScriptedAgent({ messages: taskMessages(GOAL(14)), sim });
    expect(sim.finished).not.toBeNull();
    expect(sim.artifacts.get("licenses.csv")!.content).toBe(EXPECTED_14);
    expect(sim.emails).toHaveLength(1);
  });

  it("gives up recording a fact the gateway rejects, without repeating it, and still reports the package", () => {
    const sim = createToolSimulator({
      root,
      inject: (name, args) =>
        name === "record_fact" && args.key === "license:dual" ? { error: { code: "invalid_arguments", message: "key: too long" } } : undefined,
    });
    runScriptedAgent({ messages: taskMessages(GOAL(14)), sim });
    expect(sim.log.filter((c) => c.name === "record_fact" && c.rawArguments.includes('"license:dual"'))).toHaveLength(1);
    expect(sim.artifacts.get("licenses.csv")!.content).toBe(EXPECTED_14);
    expect(sim.finished).not.toBeNull();
  });

  it("declares a dead end when there is no node_modules", () => {
    const empty = mkdtempSync(path.join(tmpdir(), "llm-audit-empty-"));
    try {
      const sim = createToolSimulator({ root: empty });
      runScriptedAgent({ messages: taskMessages(GOAL(5)), sim });
      expect(sim.finished).toBeNull();
      expect(sim.deadEnd).toMatch(/node_modules/);
      expect(sim.log.map((c) => c.name)).toEqual(["list_files", "declare_dead_end"]); // not_found is not retried
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe("scripted agent: effort", () => {
  const audit = (n: number, effort: "low" | "medium" | "high" | null) => {
    const sim = createToolSimulator({ root });
    runScriptedAgent({ messages: taskMessages(GOAL(n)), sim, effort });
    return sim;
  };
  const correct = (sim: ReturnType<typeof audit>, n: number) =>
    sim.finished !== null &&
    sim.emails.length === 1 &&
    sim.emails[0]!.to === "audit@example.com" &&
    sim.artifacts.get("licenses.csv")!.content.trim().split("\n").length === n + 1;

  it("at medium and high it never fumbles: every audit is right, as without an effort", () => {
    for (const n of [3, 6, 8, 11, 14]) {
      for (const effort of ["medium", "high", null] as const) expect(correct(audit(n, effort), n), `${n} packages at ${effort}`).toBe(true);
    }
  });

  it("at low it sometimes fumbles a decision that matters — a wrong recipient, or the last reads skipped before the email — the same way every time", () => {
    const outcomes = [3, 6, 8, 9, 11, 12, 13, 14].map((n) => {
      const sim = audit(n, "low");
      const wrongRecipient = sim.emails.some((e) => e.to !== "audit@example.com");
      const rows = sim.artifacts.get("licenses.csv")!.content.trim().split("\n").length - 1;
      // Repeatable: the seed is the request's content, not ids.
      const again = audit(n, "low");
      expect(again.emails).toEqual(sim.emails);
      expect(again.artifacts.get("licenses.csv")).toEqual(sim.artifacts.get("licenses.csv"));
      return { n, wrongRecipient, missedRows: rows < n, right: correct(sim, n) };
    });
    expect(outcomes.some((o) => o.wrongRecipient)).toBe(true);
    expect(outcomes.some((o) => o.missedRows)).toBe(true);
    expect(outcomes.some((o) => o.right)).toBe(true);
    // A mistyped address is a different, real-looking one.
    const wrong = outcomes.find((o) => o.wrongRecipient)!;
    expect(audit(wrong.n, "low").emails[0]!.to).toBe("audit@example.co");
  });
});

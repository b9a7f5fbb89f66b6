import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEMO_DEFAULT_LIMIT,
  csvField,
  expectedLicenseCsv,
  isCopyleft,
  licenseAuditGoal,
  listAuditPackages,
  normalizeLicense,
} from "../../server/tools/demo/license-audit.ts";

describe("licenseAuditGoal", () => {
  it("reads exactly as the contract says", () => {
    expect(licenseAuditGoal(3)).toBe(
      "Audit the licenses of the first 3 packages in node_modules: record name, version and license of each as facts, write licenses.csv (name,version,license,copyleft), email the summary to compliance@example.com, then finish.",
    );
    expect(licenseAuditGoal(DEMO_DEFAULT_LIMIT, "legal@example.org")).toContain("first 50 packages");
    expect(licenseAuditGoal(DEMO_DEFAULT_LIMIT, "legal@example.org")).toContain("email the summary to legal@example.org, then finish.");
  });
});

describe("normalizeLicense", () => {
  it.each([
    [{ license: "MIT" }, "MIT"],
    [{ license: "(MIT OR Apache-2.0)" }, "(MIT OR Apache-2.0)"],
    [{ license: { type: "BSD-3-Clause", url: "http://x" } }, "BSD-3-Clause"],
    [{ license: ["MIT", { type: "Apache-2.0" }] }, "MIT OR Apache-2.0"],
    [{ licenses: [{ type: "MIT" }, { type: "GPL-2.0" }] }, "MIT OR GPL-2.0"],
    [{ licenses: { type: "ISC" } }, "ISC"],
    [{ license: "ISC", licenses: [{ type: "MIT" }] }, "ISC"],
    [{}, "UNKNOWN"],
    [{ license: "" }, "UNKNOWN"],
    [{ license: [] }, "UNKNOWN"],
    [null, "UNKNOWN"],
  ])("%j → %s", (pkg, expected) => {
    expect(normalizeLicense(pkg)).toBe(expected);
  });
});

describe("isCopyleft", () => {
  it.each([
    ["GPL-2.0", true],
    ["GPL-3.0-or-later", true],
    ["GPLv2", true],
    ["GPL-2.0+", true],
    ["LGPL-2.1-only", true],
    ["AGPL-3.0", true],
    ["MPL-2.0", true],
    ["EPL-2.0", true],
    ["CDDL-1.1", true],
    ["(MIT OR GPL-3.0)", true],
    ["GPL-2.0 WITH Classpath-exception-2.0", true],
    ["MIT", false],
    ["Apache-2.0", false],
    ["ISC", false],
    ["BSD-3-Clause", false],
    ["BlueOak-1.0.0", false],
    ["UNKNOWN", false],
    ["SEE LICENSE IN LICENSE.GPL", false],
    ["MIT-0", false],
  ])("%s → %s", (license, expected) => {
    expect(isCopyleft(license)).toBe(expected);
  });
});

describe("listAuditPackages and expectedLicenseCsv on a fake node_modules", () => {
  let ws: string;
  const pkg = (name: string, json: unknown) => {
    const dir = path.join(ws, "node_modules", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "package.json"), JSON.stringify(json));
  };

  beforeAll(() => {
    ws = mkdtempSync(path.join(tmpdir(), "longhaul-tools-audit-"));
    pkg("zeta", { name: "zeta", version: "1.0.0", license: "MIT" });
    pkg("alpha", { name: "alpha", version: "2.1.0", license: { type: "GPL-3.0" } });
    pkg("@scope/beta", { name: "@scope/beta", version: "0.0.1", licenses: [{ type: "MIT" }, { type: "Apache-2.0" }] });
    pkg("@scope/.hidden", { version: "9" });
    pkg("Upper", { name: "Upper", version: "1.2.3" });
    pkg("comma", { name: "comma", version: "1.0.0", license: 'Custom, "quoted"' });
    mkdirSync(path.join(ws, "node_modules", ".bin"));
    writeFileSync(path.join(ws, "node_modules", ".package-lock.json"), "{}");
    writeFileSync(path.join(ws, "node_modules", "stray-file"), "");
    mkdirSync(path.join(ws, "linked-src"));
    writeFileSync(path.join(ws, "linked-src", "package.json"), JSON.stringify({ name: "linked", version: "3.0.0", license: "MPL-2.0" }));
    symlinkSync(path.join(ws, "linked-src"), path.join(ws, "node_modules", "linked"));
  });
  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("lists top-level and scoped packages, skipping dot names and files, in code-point order", async () => {
    expect(await listAuditPackages(ws, 100)).toEqual(["@scope/beta", "Upper", "alpha", "comma", "linked", "zeta"]);
    expect(await listAuditPackages(ws, 2)).toEqual(["@scope/beta", "Upper"]);
    expect(await listAuditPackages(path.join(ws, "missing"), 5)).toEqual([]);
  });

  it("computes the CSV from package.json files with RFC 4180 quoting and a trailing newline", async () => {
    expect(await expectedLicenseCsv(ws, 100)).toBe(
      [
        "name,version,license,copyleft",
        "@scope/beta,0.0.1,MIT OR Apache-2.0,false",
        "Upper,1.2.3,UNKNOWN,false",
        "alpha,2.1.0,GPL-3.0,true",
        'comma,1.0.0,"Custom, ""quoted""",false',
        "linked,3.0.0,MPL-2.0,true",
        "zeta,1.0.0,MIT,false",
        "",
      ].join("\n"),
    );
    expect(await expectedLicenseCsv(ws, 1)).toBe("name,version,license,copyleft\n@scope/beta,0.0.1,MIT OR Apache-2.0,false\n");
  });

  it("quotes fields with commas, quotes and line breaks only", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
  });
});

import { describe, expect, it } from "vitest";
import {
  auditSummary,
  csvField,
  isCopyleft,
  licenseCounts,
  licensesCsv,
  normalizeLicense,
  packageLicenseFromPrefix,
  packageLicenseFromText,
} from "../../server/llm/scripted/licenses.ts";

describe("normalizeLicense", () => {
  it("keeps a license string as is", () => {
    expect(normalizeLicense({ license: "MIT" })).toBe("MIT");
    expect(normalizeLicense({ license: "(MIT OR Apache-2.0)" })).toBe("(MIT OR Apache-2.0)");
    expect(normalizeLicense({ license: "SEE LICENSE IN LICENSE.md" })).toBe("SEE LICENSE IN LICENSE.md");
  });
  it("takes the type of the legacy object form", () => {
    expect(normalizeLicense({ license: { type: "BSD-3-Clause", url: "https://x" } })).toBe("BSD-3-Clause");
  });
  it("joins legacy arrays with OR, in license or licenses, objects or strings", () => {
    expect(normalizeLicense({ licenses: [{ type: "MIT" }, { type: "Apache-2.0" }] })).toBe("MIT OR Apache-2.0");
    expect(normalizeLicense({ license: ["GPL-2.0", { type: "MIT" }] })).toBe("GPL-2.0 OR MIT");
    expect(normalizeLicense({ licenses: { type: "ISC" } })).toBe("ISC");
  });
  it("prefers license over licenses and falls back to UNKNOWN", () => {
    expect(normalizeLicense({ license: "MIT", licenses: [{ type: "GPL-3.0" }] })).toBe("MIT");
    expect(normalizeLicense({ name: "x" })).toBe("UNKNOWN");
    expect(normalizeLicense({ license: "" })).toBe("UNKNOWN");
    expect(normalizeLicense({ licenses: [] })).toBe("UNKNOWN");
    expect(normalizeLicense(null)).toBe("UNKNOWN");
  });
});

describe("packageLicenseFromText", () => {
  it("reads name, version and license", () => {
    expect(packageLicenseFromText(JSON.stringify({ name: "a", version: "1.2.3", license: "ISC" }), "a")).toEqual({
      name: "a",
      version: "1.2.3",
      license: "ISC",
    });
  });
  it("recovers what it can from a package.json that does not parse", () => {
    const info = packageLicenseFromText('{"name": "broken", "version": "0.0.1", "license": ', "folder");
    expect(info.name).toBe("broken");
    expect(info.version).toBe("0.0.1");
    expect(info.license).toBe("UNKNOWN");
    expect(info.note).toMatch(/did not parse/);
  });
  it("uses the folder name when the file has no name", () => {
    expect(packageLicenseFromText("{}", "@s/x")).toEqual({ name: "@s/x", version: null, license: "UNKNOWN" });
  });
});

describe("isCopyleft", () => {
  it.each([
    ["GPL-3.0-or-later", true],
    ["GPL-2.0+", true],
    ["LGPL-2.1", true],
    ["AGPL-3.0-only", true],
    ["MPL-2.0", true],
    ["EPL-1.0", true],
    ["CDDL-1.0", true],
    ["GPLv2", true],
    ["(MIT OR GPL-3.0)", true],
    ["GPL-2.0 WITH Classpath-exception-2.0", true],
    ["MIT", false],
    ["Apache-2.0", false],
    ["BSD-3-Clause", false],
    ["ISC", false],
    ["UNKNOWN", false],
    ["MIT OR Apache-2.0", false],
    ["EUPL-1.2", false],
  ])("%s → %s", (license, expected) => {
    expect(isCopyleft(license)).toBe(expected);
  });
});

describe("CSV", () => {
  it("quotes fields with comma, quote or newline (RFC 4180)", () => {
    expect(csvField("MIT")).toBe("MIT");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
  });
  it("writes a header and one row per package, in order", () => {
    const csv = licensesCsv([
      { name: "b", version: "1.0.0", license: "MIT" },
      { name: "a", version: null, license: "(MIT, GPL-2.0)" },
    ]);
    expect(csv).toBe('name,version,license,copyleft\nb,1.0.0,MIT,false\na,,"(MIT, GPL-2.0)",true\n');
  });
});

describe("summary", () => {
  const rows = [
    { name: "a", version: "1", license: "MIT" },
    { name: "b", version: "1", license: "ISC" },
    { name: "c", version: "2", license: "MIT" },
    { name: "d", version: "3", license: "GPL-3.0" },
    { name: "e", version: null, license: "UNKNOWN", note: "package.json could not be read" },
  ];
  it("counts licenses, most frequent first, ties by name", () => {
    expect(licenseCounts(rows)).toEqual([
      { license: "MIT", count: 2 },
      { license: "GPL-3.0", count: 1 },
      { license: "ISC", count: 1 },
      { license: "UNKNOWN", count: 1 },
    ]);
  });
  it("lists total, top licenses, copyleft and unknown packages", () => {
    const body = auditSummary(rows, "licenses.csv");
    expect(body).toContain("License audit of 5 packages.");
    expect(body).toContain("- MIT: 2");
    expect(body).toContain("Copyleft (1):\n- d@3: GPL-3.0");
    expect(body).toContain("Unknown license (1):\n- e@? (package.json could not be read)");
  });
});

describe("packageLicenseFromPrefix (first page of a large package.json)", () => {
  it("reads top-level name, version and a string license from the first page", () => {
    const page =
      '{\n  "name": "big",\n  "version": "4.4.0",\n  "description": "x",\n  "license": "MIT",\n  "exports": {\n    "./a": {\n      "license": "nested"';
    expect(packageLicenseFromPrefix(page, "big")).toEqual({ name: "big", version: "4.4.0", license: "MIT" });
  });

  it("declines when the license is not a plain top-level string, or a field is not on the page", () => {
    expect(packageLicenseFromPrefix('{\n  "name": "a",\n  "version": "1.0.0",\n  "license": {\n    "type": "MIT"', "a")).toBeNull();
    expect(packageLicenseFromPrefix('{\n  "name": "a",\n  "version": "1.0.0",\n  "exports": {', "a")).toBeNull();
    expect(packageLicenseFromPrefix('{\n  "name": "a",\n  "version": "1.0.0",\n  "license": "MIT",\n  "licenses": [', "a")).toBeNull();
    expect(packageLicenseFromPrefix('{\n  "exports": {\n    "name": "a",\n    "version": "1",\n    "license": "MIT"', "a")).toBeNull();
  });
});

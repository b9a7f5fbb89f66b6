import type { z } from "zod";

/** Largest `rawArguments` string the gateway parses (bytes): a 1 MiB artifact JSON-escaped, with room. */
export const MAX_RAW_ARGUMENTS_BYTES = 4 * 1_048_576;

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || "arguments";
}

/** One zod issue as "field: what is wrong, got what", e.g. "limit: must be ≤ 262144, got 500000". */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const field = fieldName(issue.path);
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case "too_big": {
      const op = issue.inclusive === false ? "<" : "≤";
      if (issue.origin === "string")
        return `${field}: must be at most ${String(issue.maximum)} characters, got ${typeof input === "string" ? input.length : show(input)}`;
      if (issue.origin === "array")
        return `${field}: must have at most ${String(issue.maximum)} items, got ${Array.isArray(input) ? input.length : show(input)}`;
      return `${field}: must be ${op} ${String(issue.maximum)}, got ${show(input)}`;
    }
    case "too_small": {
      const op = issue.inclusive === false ? ">" : "≥";
      if (issue.origin === "string")
        return `${field}: must be at least ${String(issue.minimum)} characters, got ${typeof input === "string" ? input.length : show(input)}`;
      if (issue.origin === "array")
        return `${field}: must have at least ${String(issue.minimum)} items, got ${Array.isArray(input) ? input.length : show(input)}`;
      return `${field}: must be ${op} ${String(issue.minimum)}, got ${show(input)}`;
    }
    case "invalid_type":
      if (input === undefined) return `${field}: required (${issue.expected})`;
      return `${field}: must be ${issue.expected === "int" ? "an integer" : `of type ${issue.expected}`}, got ${kindOf(input)} ${show(input)}`;
    case "unrecognized_keys":
      return `${field === "arguments" ? "" : `${field}: `}unknown argument${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
    case "invalid_format":
      if (issue.format === "regex") return `${field}: ${issue.message}, got ${show(input)}`;
      return `${field}: must be a valid ${issue.format}, got ${show(input)}`;
    case "invalid_value":
      return `${field}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${show(input)}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

/** All issues of a failed parse, one sentence each, joined with "; ". */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map(describeIssue).join("; ");
}

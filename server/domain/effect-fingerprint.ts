import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** A value JSON cannot represent canonically (NaN, Infinity, lone surrogates in strings); the message says why. */
export class NotCanonicalJsonError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NotCanonicalJsonError";
  }
}

/** RFC 8785 canonical JSON of `value` (package `canonicalize`). Throws NotCanonicalJsonError. */
export function canonicalJsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (error) {
    throw new NotCanonicalJsonError((error as Error).message, { cause: error });
  }
  if (text === undefined) throw new NotCanonicalJsonError("value is not representable as JSON");
  return text;
}

/**
 * Fingerprint of an effect (the side-effect ledger's and the approvals' identity of a call, tools/ledger.ts):
 * hex sha256 of task id, tool name and canonical arguments, newline-separated. Throws NotCanonicalJsonError.
 */
export function effectFingerprint({ taskId, tool, args }: { taskId: string; tool: string; args: unknown }): string {
  return createHash("sha256")
    .update(`${taskId}\n${tool}\n${canonicalJsonText(args)}`)
    .digest("hex");
}

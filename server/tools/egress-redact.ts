import { redactText, scanForSecrets } from "./egress-scan.ts";

/**
 * Secrets out of what the browser is shown of stored steps. A step's stored payloads are kept
 * exact (a model step's tool-call arguments are what an approval fingerprints and a resume
 * replays; a tool step's output is what the agent read), but what the step / prompt API answers
 * has every secret the egress scanner detects (secretlint's recommended preset plus Longhaul's own
 * rules, server/tools/egress-scan.ts) replaced by `[redacted: <rule name>]`, e.g.
 * `[redacted: GitHub Token]`. Verbatim workspace text is not redacted here: reading it is what the
 * timeline is for; only secrets are cut.
 */

/** True for `{…}` literals and JSON-parsed objects (not Dates, Decimals or other class instances). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * A copy of `value` with every secret in every string leaf replaced by `[redacted: <rule name>]`
 * (object keys are left as they are; non-plain objects such as Dates pass through untouched), and
 * how many secrets were cut. Strings inside JSON text (a tool call's `arguments` string) are
 * scanned as text, so the JSON stays parseable: a detected secret never spans a quote.
 */
export async function redactSecrets<T>(value: T): Promise<{ value: T; redactions: number }> {
  let redactions = 0;
  const walk = async (v: unknown): Promise<unknown> => {
    if (typeof v === "string") {
      const found = await scanForSecrets(v, "value");
      if (found.length === 0) return v;
      redactions += found.length;
      return redactText(v, found);
    }
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (const item of v) out.push(await walk(item));
      return out;
    }
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[k] = await walk(item);
      return out;
    }
    return v;
  };
  const redacted = (await walk(value)) as T;
  return { value: redacted, redactions };
}

/**
 * A stored step as the step API answers it: `arguments`, `output`, `error` and `summary` with their
 * secrets redacted ({@link redactSecrets}), everything else as stored; `redactedSecrets` counts the
 * cuts (0: the payloads are exactly as stored), so the page can say so.
 */
export async function redactStepForBrowser<S extends { arguments: unknown; output: unknown; error: string | null; summary: string | null }>(
  step: S,
): Promise<S & { redactedSecrets: number }> {
  const { value, redactions } = await redactSecrets({ arguments: step.arguments, output: step.output, error: step.error, summary: step.summary });
  return { ...step, ...value, redactedSecrets: redactions };
}

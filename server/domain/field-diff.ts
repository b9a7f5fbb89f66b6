/** One changed field: its path (`transport.env.API_TOKEN`), its stored and its new value (JSON values; null = absent). */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Key-sorted JSON, so two values that mean the same compare equal. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) => (isPlainObject(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v)) ?? "null"
  );
}

/**
 * The fields that differ between `from` (null: nothing stored yet, so every field of `to` counts)
 * and `to`, by dotted path: nested plain objects are compared field by field (`transport.env.TOKEN`),
 * arrays and other values whole (`transport.args`). A field only one side has is reported with
 * null on the other side. In path order. Pure.
 */
export function diffFields(from: Record<string, unknown> | null, to: Record<string, unknown>, prefix = ""): FieldChange[] {
  const out: FieldChange[] = [];
  const keys = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to)])].sort();
  for (const key of keys) {
    const a = from?.[key];
    const b = to[key];
    const path = `${prefix}${key}`;
    if (isPlainObject(a) && isPlainObject(b)) out.push(...diffFields(a, b, `${path}.`));
    else if (from === null || canonical(a) !== canonical(b)) {
      if (isPlainObject(b) && a === undefined) out.push(...diffFields(null, b, `${path}.`));
      else out.push({ field: path, from: a ?? null, to: b ?? null });
    }
  }
  return out;
}

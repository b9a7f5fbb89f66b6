const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * PostgreSQL text and jsonb cannot hold NUL characters or unpaired UTF-16 surrogates (a database
 * error would make the step retry forever), so they are refused up front as bad input. Returns a
 * message naming the first offending field, or null.
 */
export function findUnstorableString(value: unknown, path = ""): string | null {
  const field = path || "arguments";
  if (typeof value === "string") {
    if (value.includes("\0")) return `${field}: must not contain NUL characters (\\u0000)`;
    if (loneSurrogate.test(value)) return `${field}: must not contain unpaired UTF-16 surrogates`;
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableString(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === "object" && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const keyProblem = findUnstorableString(key, `${field} key`);
      if (keyProblem) return keyProblem;
      const found = findUnstorableString(inner, path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

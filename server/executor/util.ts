import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { encodeTime, ulid } from "ulid";

/**
 * Canonical JSON (RFC 8785, JCS): object keys sorted by UTF-16 code units, no whitespace, numbers
 * and strings serialised as ECMAScript's JSON.stringify does. `undefined` members are dropped.
 * Used to sign request bodies exactly as the SDK re-canonicalises them (docs/INNGEST-PROTOCOL.md §2.9,
 * inngest-js `helpers/net.ts`, Go `driver.go:262-266`).
 *
 * Kept here rather than taken from the `canonicalize` package the rest of the app uses: the SDK
 * verifies with its own `canonicalize@1.0.8`, which serialises a lone UTF-16 surrogate as
 * JSON.stringify does (`"\ud800"`), while `canonicalize@4` throws on one — and step outputs are user
 * data that can hold a surrogate cut in half. On any parsed JSON value this function and the SDK's
 * agree (tests/unit/executor-util.test.ts checks it against the SDK's own copy).
 * @throws TypeError for BigInt or non-finite numbers (not representable in JSON).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("non-finite number in JSON");
    if (typeof value === "bigint") throw new TypeError("BigInt in JSON");
    return JSON.stringify(value) ?? "null";
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return canonicalJson((value as { toJSON: () => unknown }).toJSON());
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined || typeof v === "function" ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && typeof v !== "function")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** `signkey-<env>-<hex>` → `<hex>` (inngest-js `helpers/strings.ts` removeSigningKeyPrefix). */
export function stripSigningKeyPrefix(key: string): string {
  return key.replace(/^signkey-[\w]+-/, "");
}

/**
 * The bearer token the SDK sends to the server: `signkey-<env>-` + sha256(hex-decoded key) in hex
 * (inngest-js `helpers/strings.ts:88-93`, docs/INNGEST-PROTOCOL.md §2.9).
 */
export function hashSigningKey(key: string): string {
  const prefix = /^signkey-[\w]+-/.exec(key)?.[0] ?? "";
  return (
    prefix +
    createHash("sha256")
      .update(Buffer.from(stripSigningKeyPrefix(key), "hex"))
      .digest("hex")
  );
}

/**
 * `X-Inngest-Signature` value for `body` (already canonical JSON text) at unix time `tSec`:
 * `t=<sec>&s=hex(HMAC-SHA256(key = prefix-less key text, msg = body + t))` (docs/INNGEST-PROTOCOL.md §2.9).
 */
export function signBody(body: string, signingKey: string, tSec = Math.floor(Date.now() / 1000)): string {
  const s = createHmac("sha256", stripSigningKeyPrefix(signingKey))
    .update(body + String(tSec))
    .digest("hex");
  return `t=${tSec}&s=${s}`;
}

/** How far a response signature's `t` may be from the executor's clock, ms (the SDK's own window for requests, `RequestSignature.hasExpired`). */
export const RESPONSE_SIGNATURE_WINDOW_MS = 5 * 60_000;

/**
 * Verifies the `X-Inngest-Signature` the SDK puts on its responses to a signed request:
 * `t=<sec>&s=hex(HMAC-SHA256(key = prefix-less signing key text, msg = <response body text> + t))`
 * over the body exactly as received (inngest-js 4.24.0 `InngestCommHandler.getResponseSignature`,
 * `helpers/net.ts` signDataWithKey: a string body is signed as is). Constant-time comparison; `t`
 * must be within {@link RESPONSE_SIGNATURE_WINDOW_MS} of `nowMs`.
 * @returns undefined when valid, else why not (a sentence naming the header)
 */
export function responseSignatureProblem(header: string | null | undefined, body: string, signingKey: string, nowMs = Date.now()): string | undefined {
  if (!header) return "the response has no X-Inngest-Signature header";
  const params = new URLSearchParams(header);
  const t = params.get("t") ?? "";
  const s = params.get("s") ?? "";
  if (!/^\d+$/.test(t) || !/^[0-9a-f]{64}$/i.test(s)) return `the response's X-Inngest-Signature is malformed (${JSON.stringify(header.slice(0, 100))})`;
  if (Math.abs(nowMs - Number(t) * 1000) > RESPONSE_SIGNATURE_WINDOW_MS) return `the response's X-Inngest-Signature is dated t=${t}, more than 5 min from now`;
  const expected = createHmac("sha256", stripSigningKeyPrefix(signingKey))
    .update(body + t)
    .digest();
  if (!timingSafeEqual(expected, Buffer.from(s, "hex")))
    return "the response's X-Inngest-Signature does not match its body (forged, altered, or signed with another key)";
  return undefined;
}

/**
 * Checks an `Authorization: Bearer …` header sent by the SDK (register, checkpoint) against the
 * hashed signing key. Constant-time comparison. Returns false for a missing or malformed header.
 */
const hashedKeyCache = new Map<string, string>();

export function verifyBearer(header: string | undefined, signingKey: string): boolean {
  const m = /^Bearer\s+(\S+)$/.exec(header ?? "");
  if (!m?.[1]) return false;
  const given = stripSigningKeyPrefix(m[1]);
  let expected = hashedKeyCache.get(signingKey);
  if (expected === undefined) {
    expected = stripSigningKeyPrefix(hashSigningKey(signingKey));
    hashedKeyCache.set(signingKey, expected);
  }
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Auth for the executor's own REST API (`/v1/runs/…`), as Inngest's REST API does it:
 * `Authorization: Bearer <signing key>` — the raw key or its hashed form are both accepted.
 */
export function verifyApiBearer(header: string | undefined, signingKey: string): boolean {
  const m = /^Bearer\s+(\S+)$/.exec(header ?? "");
  if (!m?.[1]) return false;
  const given = Buffer.from(stripSigningKeyPrefix(m[1]));
  const raw = Buffer.from(stripSigningKeyPrefix(signingKey));
  if (given.length === raw.length && timingSafeEqual(given, raw)) return true;
  return verifyBearer(header, signingKey);
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * Builds a ULID from a millisecond timestamp and 10 bytes of entropy (Crockford base32, 26 chars):
 * the time part by the `ulid` package's `encodeTime`; the random part from the given bytes, which
 * the package cannot take (its random part comes from a PRNG), so that a retried send derives the
 * same ids (Go `pkg/event/id.go`).
 */
export function ulidFrom(ms: number, entropy: Uint8Array): string {
  // 80 bits → 16 base32 chars.
  let bits = 0n;
  for (const b of entropy.subarray(0, 10)) bits = (bits << 8n) | BigInt(b);
  let rand = "";
  for (let i = 0; i < 16; i++) {
    rand = CROCKFORD[Number(bits & 31n)]! + rand;
    bits >>= 5n;
  }
  return encodeTime(Math.max(0, Math.floor(ms)), 10) + rand;
}

/** A fresh random ULID (the `ulid` package). */
export function newUlid(): string {
  return ulid();
}

/**
 * Event ids for one send: derived from `x-inngest-event-id-seed: "<ms>,<base64 of 10 bytes>"` with
 * the event's index added to the entropy, so a retried send yields the same ids (Go
 * `pkg/event/id.go:24-61`, docs/INNGEST-PROTOCOL.md §2.10). Without a valid seed: random ULIDs.
 */
export function eventIds(seed: string | undefined, count: number): string[] {
  const m = /^(\d+),([A-Za-z0-9+/=]+)$/.exec(seed ?? "");
  const bytes = m ? Buffer.from(m[2]!, "base64") : undefined;
  if (!m || !bytes || bytes.length !== 10) return Array.from({ length: count }, () => newUlid());
  const ms = Number(m[1]);
  let base = 0n;
  for (const b of bytes) base = (base << 8n) | BigInt(b);
  return Array.from({ length: count }, (_, i) => {
    let v = (base + BigInt(i)) & ((1n << 80n) - 1n);
    const e = new Uint8Array(10);
    for (let j = 9; j >= 0; j--) {
      e[j] = Number(v & 255n);
      v >>= 8n;
    }
    return ulidFrom(ms, e);
  });
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a duration as the SDK sends it: Go-style strings (`"5s"`, `"1h30m"`, `"2d"`, `"1w"`,
 * `"250ms"`), or a number of milliseconds. Returns milliseconds, or undefined when unparseable.
 * Source: docs/INNGEST-PROTOCOL.md §7.1 item 7, inngest-js `timeStr`.
 */
export function parseDurationMs(input: unknown): number | undefined {
  if (typeof input === "number" && Number.isFinite(input)) return input;
  if (typeof input !== "string" || !input.trim()) return undefined;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;
  let total = 0;
  let consumed = 0;
  for (const m of input.trim().matchAll(re)) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === input.trim().length && consumed > 0 ? total : undefined;
}

/** Maximum sleep / wait: 366 days (Go `opcode.go:276-323`). */
export const MAX_SLEEP_MS = 366 * 86_400_000;

/**
 * Resolves a `Sleep` op's target time: `opts.duration ?? name` as a duration or an ISO date
 * (`sleepUntil`). Capped at now + 366 days. Returns undefined when neither parses.
 */
export function sleepUntil(op: { name?: unknown; opts?: { duration?: unknown } | null }, now = Date.now()): Date | undefined {
  for (const candidate of [op.opts?.duration, op.name]) {
    const ms = parseDurationMs(candidate);
    if (ms !== undefined) return new Date(now + Math.min(Math.max(ms, 0), MAX_SLEEP_MS));
    if (typeof candidate === "string") {
      const t = Date.parse(candidate);
      if (!Number.isNaN(t)) return new Date(Math.min(t, now + MAX_SLEEP_MS));
    }
  }
  return undefined;
}

/**
 * Parses a `retry-after` header: seconds (`"30"`) or an HTTP/ISO date. Returns the absolute time,
 * or undefined (docs/INNGEST-PROTOCOL.md §2.8; Go `util.go:177-200`).
 */
export function parseRetryAfter(header: string | null | undefined, now = Date.now()): Date | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return new Date(now + Number(trimmed) * 1000);
  const t = Date.parse(trimmed);
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** Inngest's default backoff table in ms: 15s,30s,1m,2m,5m,10m,20m,40m,1h,2h (Go `pkg/backoff/backoff.go`). */
export const DEFAULT_BACKOFF_MS = [15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_200_000, 2_400_000, 3_600_000, 7_200_000];

/**
 * Delay before retry number `attempt + 1` (attempt is the 0-based attempt that just failed):
 * table[min(attempt, last)], plus 0–30 s jitter when `jitter` (Go adds up to 30 s).
 */
export function backoffDelayMs(attempt: number, table: readonly number[], jitter: boolean): number {
  const base = table[Math.min(Math.max(attempt, 0), table.length - 1)] ?? 0;
  return base + (jitter ? Math.floor(Math.random() * 30_000) : 0);
}

/** A stable UUID-shaped id derived from a string (sha1, version nibble 5); used for `ctx.fn_id`. */
export function stableUuid(input: string): string {
  const h = createHash("sha1").update(input).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

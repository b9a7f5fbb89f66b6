import { createHash, createHmac } from "node:crypto";
import { createRequire } from "node:module";
import fc from "fast-check";
import { decodeTime } from "ulid";
import { describe, expect, it } from "vitest";
import { evalCel, checkCel } from "../../server/executor/cel.ts";
import { validateFunctionConfig } from "../../server/executor/registry.ts";
import { isRetryableConflict, retryOnConflict } from "../../server/executor/engine/context.ts";
import {
  backoffDelayMs,
  canonicalJson,
  DEFAULT_BACKOFF_MS,
  eventIds,
  hashSigningKey,
  parseDurationMs,
  parseRetryAfter,
  responseSignatureProblem,
  signBody,
  sleepUntil,
  stableUuid,
  verifyBearer,
  MAX_SLEEP_MS,
} from "../../server/executor/util.ts";

describe("canonical JSON and signing (docs/INNGEST-PROTOCOL.md §2.9)", () => {
  it("sorts keys recursively, drops undefined, keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" }, u: undefined })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(null)).toBe("null");
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });

  it("agrees with the SDK's own canonicalize on every JSON value, lone surrogates included", () => {
    // The copy inngest@4.24.0 verifies signatures with (its nested canonicalize@1.0.8), not the app's.
    const sdkCanonicalize = createRequire(createRequire(import.meta.url).resolve("inngest"))("canonicalize") as (v: unknown) => string;
    expect(sdkCanonicalize({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        const parsed: unknown = JSON.parse(JSON.stringify(value));
        expect(canonicalJson(parsed)).toBe(sdkCanonicalize(parsed));
      }),
      { numRuns: 500 },
    );
    expect(canonicalJson({ s: "\ud800" })).toBe(sdkCanonicalize({ s: "\ud800" }));
    // CPU only, no waiting: fast-check's first jsonValue sample sets up its generators in seconds
    // under vitest's module loader (6 s measured at load 10; 0.2 s under plain tsx).
  }, 30_000);

  it("signs body+t with the prefix-less key text as HMAC key", () => {
    const key = "signkey-test-abcdef";
    const sig = signBody('{"a":1}', key, 1700000000);
    const expected = createHmac("sha256", "abcdef").update('{"a":1}1700000000').digest("hex");
    expect(sig).toBe(`t=1700000000&s=${expected}`);
  });

  it("hashes the signing key like the SDK's bearer token and verifies it", () => {
    const key = "signkey-test-0123456789abcdef";
    const hashed = hashSigningKey(key);
    expect(hashed).toBe(`signkey-test-${createHash("sha256").update(Buffer.from("0123456789abcdef", "hex")).digest("hex")}`);
    expect(verifyBearer(`Bearer ${hashed}`, key)).toBe(true);
    expect(verifyBearer("Bearer undefined", key)).toBe(false);
    expect(verifyBearer(undefined, key)).toBe(false);
    expect(verifyBearer(`Bearer ${hashed.slice(0, -1)}0`, key)).toBe(hashed.endsWith("0"));
  });
});

describe("durations, sleeps, retry-after, backoff", () => {
  it("parses Go-style durations", () => {
    expect(parseDurationMs("5s")).toBe(5000);
    expect(parseDurationMs("1h30m")).toBe(5_400_000);
    expect(parseDurationMs("2d")).toBe(172_800_000);
    expect(parseDurationMs("1w")).toBe(604_800_000);
    expect(parseDurationMs("250ms")).toBe(250);
    expect(parseDurationMs("soon")).toBeUndefined();
    expect(parseDurationMs("5x")).toBeUndefined();
  });

  it("reads a Sleep op's duration from opts.duration, then name, or an ISO date; caps at 366 days", () => {
    const now = 1_000_000;
    expect(sleepUntil({ name: "5s", opts: {} }, now)?.getTime()).toBe(now + 5000);
    expect(sleepUntil({ name: "ignored", opts: { duration: "1m" } }, now)?.getTime()).toBe(now + 60_000);
    const mid2029 = Date.parse("2029-06-01T00:00:00.000Z");
    expect(sleepUntil({ name: "2030-01-01T00:00:00.000Z" }, mid2029)?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(sleepUntil({ name: "2099-01-01T00:00:00.000Z" }, mid2029)?.getTime()).toBe(mid2029 + MAX_SLEEP_MS);
    expect(sleepUntil({ name: "9999w" }, now)?.getTime()).toBe(now + MAX_SLEEP_MS);
    expect(sleepUntil({ name: "never" }, now)).toBeUndefined();
  });

  it("parses retry-after as seconds or a date", () => {
    expect(parseRetryAfter("30", 0)?.getTime()).toBe(30_000);
    expect(parseRetryAfter("2030-01-01T00:00:00.000Z")?.toISOString()).toBe("2030-01-01T00:00:00.000Z");
    expect(parseRetryAfter("garbage")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it("uses Inngest's backoff table with 0–30 s jitter, or an override without jitter", () => {
    expect(DEFAULT_BACKOFF_MS.slice(0, 3)).toEqual([15_000, 30_000, 60_000]);
    const d = backoffDelayMs(0, DEFAULT_BACKOFF_MS, true);
    expect(d).toBeGreaterThanOrEqual(15_000);
    expect(d).toBeLessThan(45_000);
    expect(backoffDelayMs(99, DEFAULT_BACKOFF_MS, false)).toBe(7_200_000);
    expect([0, 1, 2, 3].map((a) => backoffDelayMs(a, [50, 100, 200], false))).toEqual([50, 100, 200, 200]);
  });
});

describe("event ids", () => {
  it("derives the same ULIDs from the same seed (a retried send), different per index", () => {
    const seed = `1700000000000,${Buffer.from("0123456789").toString("base64")}`;
    const a = eventIds(seed, 2);
    expect(eventIds(seed, 2)).toEqual(a);
    expect(a[0]).not.toBe(a[1]);
    expect(a[0]).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(a[0]!)).toBe(1700000000000);
    expect(eventIds(undefined, 1)[0]).not.toBe(eventIds(undefined, 1)[0]);
    expect(stableUuid("fn")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("CEL (waitForEvent / cancelOn / trigger expressions)", () => {
  const ctx = { event: { data: { runId: "r-1", n: 5 } }, async: { data: { runId: "r-1" } } };
  it("matches and non-matches", () => {
    expect(evalCel("event.data.runId == async.data.runId", ctx)).toEqual({ match: true });
    expect(evalCel("event.data.n > 7", ctx)).toEqual({ match: false });
  });
  it("treats a missing key as a non-match with the error reported, never a throw", () => {
    const res = evalCel("event.data.function_id == 'x'", ctx);
    expect(res.match).toBe(false);
    expect(res.error).toMatch(/No such key/);
  });
  it("treats non-boolean results and parse errors as non-matches", () => {
    expect(evalCel("event.data.n", ctx).match).toBe(false);
    expect(evalCel("event.data.(", ctx).match).toBe(false);
    expect(checkCel("event.data.(")).toBeDefined();
    expect(checkCel("event.data.a == 1")).toBeUndefined();
  });
});

describe("registration refusal (docs/INNGEST-PROTOCOL.md §7.1 item 1)", () => {
  const base = {
    id: "app-fn",
    name: "fn",
    triggers: [{ event: "a/b" }],
    steps: { step: { id: "step", name: "step", runtime: { type: "http", url: "http://x/api/inngest?fnId=app-fn&stepId=step" } } },
  };
  it("accepts implemented options", () => {
    expect(
      validateFunctionConfig({
        ...base,
        idempotency: "event.data.k",
        cancel: [{ event: "a/c", if: "event.data.x == async.data.x", timeout: "1d" }],
        concurrency: [{ limit: 2, key: "event.data.u" }],
      }),
    ).toEqual([]);
  });
  it.each(["batchEvents", "debounce", "throttle", "priority", "singleton", "rateLimit", "timeouts", "somethingNew"])("refuses %s loudly", (key) => {
    const problems = validateFunctionConfig({ ...base, [key]: { limit: 1 } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`"${key}" refused`);
  });
  it("refuses cron and wildcard triggers, account-scoped concurrency, too many retries", () => {
    expect(validateFunctionConfig({ ...base, triggers: [{ cron: "* * * * *" }] }).join()).toMatch(/cron/);
    expect(validateFunctionConfig({ ...base, triggers: [{ event: "a/*" }] }).join()).toMatch(/wildcard/);
    expect(validateFunctionConfig({ ...base, triggers: [{ event: "inngest/deferred.schedule" }] }).join()).toMatch(
      /"inngest\/deferred.schedule" refused: defer/,
    );
    expect(validateFunctionConfig({ ...base, triggers: [{ event: "inngest/scheduled.timer" }] }).join()).toMatch(/never emitted/);
    expect(validateFunctionConfig({ ...base, triggers: [{ event: "inngest/function.failed", expression: "event.data.function_id == 'x'" }] })).toEqual([]);
    expect(validateFunctionConfig({ ...base, concurrency: { limit: 1, scope: "account" } }).join()).toMatch(/scope/);
    expect(validateFunctionConfig({ ...base, steps: { step: { ...base.steps.step, retries: { attempts: 21 } } } }).join()).toMatch(/retries/);
  });
});

describe("response signatures (inngest-js getResponseSignature: HMAC over the body text + t)", () => {
  const key = "signkey-test-8f4b2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c";
  const body = '[{"id":"bed97175b06e68eb7ff5722897aa86b8ea75c8ef","op":"StepRun","data":"é"}]';
  const now = 1_795_970_054_000;
  const t = Math.floor(now / 1000);
  // Computed independently: HMAC-SHA256 keyed with the hex text after the signkey-<env>- prefix.
  const s = createHmac("sha256", key.replace(/^signkey-test-/, ""))
    .update(body + String(t))
    .digest("hex");

  it("accepts the SDK's signature of the exact body", () => {
    expect(responseSignatureProblem(`t=${t}&s=${s}`, body, key, now)).toBeUndefined();
    expect(responseSignatureProblem(`t=${t}&s=${s}`, body, key, now + 4 * 60_000)).toBeUndefined();
  });

  it("refuses a missing, malformed, stale, forged or re-keyed signature, saying which", () => {
    expect(responseSignatureProblem(null, body, key, now)).toMatch(/no X-Inngest-Signature/);
    expect(responseSignatureProblem("t=abc&s=00", body, key, now)).toMatch(/malformed/);
    expect(responseSignatureProblem(`t=${t}&s=${s}`, body, key, now + 6 * 60_000)).toMatch(/more than 5 min/);
    expect(responseSignatureProblem(`t=${t}&s=${s}`, body.replace("é", "e"), key, now)).toMatch(/does not match its body/);
    expect(responseSignatureProblem(`t=${t + 1}&s=${s}`, body, key, now)).toMatch(/does not match/);
    expect(responseSignatureProblem(`t=${t}&s=${s}`, body, key.replace(/c$/, "d"), now)).toMatch(/does not match/);
  });
});

describe("retryOnConflict: a statement PostgreSQL aborted to break a deadlock runs again", () => {
  const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
  it("retries deadlocks and serialisation failures, then returns the result", async () => {
    let calls = 0;
    const seen: number[] = [];
    const result = await retryOnConflict(
      async () => {
        calls++;
        if (calls === 1) throw deadlock;
        if (calls === 2) throw Object.assign(new Error("Transaction failed due to a write conflict or a deadlock"), { code: "P2034" });
        return "ok";
      },
      5,
      (_e, attempt) => seen.push(attempt),
    );
    expect({ result, calls, seen }).toEqual({ result: "ok", calls: 3, seen: [2, 3] });
  });
  it("throws other errors at once and the last conflict after the attempts", async () => {
    let calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw new Error("relation does not exist");
      }),
    ).rejects.toThrow("relation does not exist");
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      retryOnConflict(async () => {
        calls++;
        throw deadlock;
      }, 3),
    ).rejects.toBe(deadlock);
    expect(calls).toBe(3);
    expect(isRetryableConflict(new Error("ERROR: could not serialize access due to concurrent update"))).toBe(true);
    expect(isRetryableConflict(new Error("duplicate key value"))).toBe(false);
  });
});

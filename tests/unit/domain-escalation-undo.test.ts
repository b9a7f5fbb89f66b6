import { describe, expect, it } from "vitest";
import { isoUtc } from "../../lib/contracts/dates.ts";
import {
  applyDecisionNow,
  claimEscalation,
  ESCALATION_DECISIONS,
  decideEscalation,
  decideEscalationInputSchema,
  releaseEscalation,
  undoEscalationDecision,
  type ClaimPorts,
  type DecidePorts,
  type EscalationState,
} from "../../server/domain/decide-escalation.ts";
import { AppError } from "../../server/errors.ts";
import { fakeApplyPorts } from "../support/fake-apply-ports.ts";

/**
 * In-memory escalation rows with the guarded writes the Prisma ports make (same conditions), and a
 * settable clock standing in for the database's.
 */
function fakeStore() {
  let now = 1_000_000;
  const rows = new Map<string, EscalationState & { guidance: string | null }>();
  rows.set("esc_1", {
    status: "open",
    decision: null,
    decidedBy: null,
    decidedAt: null,
    applyAfter: null,
    appliedAt: null,
    claimedBy: null,
    claimedAt: null,
    guidance: null,
  });
  const events: string[] = [];
  const state = (id: string) => {
    const r = rows.get(id);
    if (!r) return null;
    const { guidance: _g, ...s } = r;
    return { ...s };
  };
  const decide: DecidePorts = {
    async recordDecision(input) {
      const r = rows.get(input.escalationId);
      if (!r) return null;
      if (r.status !== "open") return { ok: false, state: state(input.escalationId)! };
      // The Prisma port's claim guard: unclaimed, claimed by the actor, or by the handler taken over from.
      if (r.claimedBy !== null && r.claimedBy !== input.actor && r.claimedBy !== input.takeOverFrom) return { ok: false, state: state(input.escalationId)! };
      if (input.takeOverFrom) Object.assign(r, { claimedBy: input.actor, claimedAt: new Date(now) });
      const applyAfter = input.undoSeconds > 0 ? new Date(now + input.undoSeconds * 1000) : null;
      Object.assign(r, {
        status: "decided",
        decision: input.decision,
        decidedBy: input.actor,
        decidedAt: new Date(now),
        applyAfter,
        guidance: input.guidance ?? null,
      });
      return { ok: true, applyAfter };
    },
    async sendApplied(e) {
      events.push(`applied ${e.escalationId} ${e.decision}`);
    },
    async sendDecided(e) {
      events.push(`decided ${e.escalationId} ${e.decision} ${e.applyAt}`);
    },
    apply: fakeApplyPorts({
      onApply(id) {
        const r = rows.get(id)!;
        if (r.status === "decided" && (r.applyAfter === null || r.applyAfter.getTime() <= now))
          Object.assign(r, { status: "applied", appliedAt: new Date(now) });
        events.push(`applyNow ${id}`);
      },
      statusOf: (id) => rows.get(id)!.status,
      now: () => new Date(now),
    }),
    async sendRunStarted(e) {
      events.push(`started ${e.runId}`);
    },
    async undoDecision({ escalationId, actor, expectedApplyAfter, onlyBy }) {
      const r = rows.get(escalationId);
      if (!r) return null;
      const inWindow =
        r.status === "decided" &&
        r.applyAfter !== null &&
        r.applyAfter.getTime() > now &&
        (!expectedApplyAfter || expectedApplyAfter.getTime() === r.applyAfter.getTime()) &&
        (onlyBy === undefined || r.decidedBy === onlyBy);
      if (!inWindow) return { ok: false, state: state(escalationId)! };
      const undone = { decision: r.decision!, decidedBy: r.decidedBy, at: new Date(now) };
      Object.assign(r, { status: "open", decision: null, decidedBy: null, decidedAt: null, applyAfter: null, guidance: null });
      events.push(`undo by ${actor}`);
      return { ok: true, undone };
    },
    async endUndoWindow({ escalationId, onlyBy }) {
      const r = rows.get(escalationId);
      if (!r) return null;
      const inWindow = r.status === "decided" && r.applyAfter !== null && r.applyAfter.getTime() > now && r.decidedBy === onlyBy;
      if (!inWindow) return { ok: false, state: state(escalationId)! };
      r.applyAfter = new Date(now);
      events.push(`window ended by ${onlyBy}`);
      return { ok: true, decision: ESCALATION_DECISIONS.find((d) => d === r.decision)!, applyAfter: r.applyAfter };
    },
  };
  const claim: ClaimPorts = {
    async setClaim({ escalationId, actor, expected }) {
      const r = rows.get(escalationId);
      if (!r) return null;
      if (r.claimedBy !== expected || (actor !== null && r.status === "applied")) return { ok: false, state: state(escalationId)! };
      Object.assign(r, { claimedBy: actor, claimedAt: actor === null ? null : new Date(now) });
      return { ok: true, at: new Date(now) };
    },
  };
  return {
    decide,
    claim,
    rows,
    events,
    tick: (ms: number) => {
      now += ms;
    },
    /** Stands in for escalation-apply: applies a decided row whose window has ended. */
    applyDue(id: string) {
      const r = rows.get(id)!;
      if (r.status === "decided" && r.applyAfter !== null && r.applyAfter.getTime() <= now) Object.assign(r, { status: "applied", appliedAt: new Date(now) });
    },
  };
}

const parse = (v: Record<string, unknown>) => decideEscalationInputSchema.parse({ escalationId: "esc_1", decision: "resume", ...v });

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

describe("decide with an undo window", () => {
  it("undoSeconds defaults to 0: applied in the request, escalation.applied sent, no decided event", async () => {
    const s = fakeStore();
    const res = await decideEscalation({ input: parse({}), actor: "ann", ports: s.decide });
    expect(res).toEqual({ escalationId: "esc_1", decision: "resume", applyAt: null, undoSeconds: 0 });
    expect(s.events).toEqual(["applyNow esc_1", "applied esc_1 resume"]);
    expect(s.rows.get("esc_1")!.status).toBe("applied");
  });

  it("with undoSeconds: recorded with applyAfter = now + window, escalation.decided sent with applyAt, nothing applied", async () => {
    const s = fakeStore();
    const res = await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    expect(res.applyAt).toBe(new Date(1_000_000 + 10_000).toISOString());
    expect(res.undoSeconds).toBe(10);
    expect(s.events).toEqual([`decided esc_1 resume ${res.applyAt}`]);
    expect(s.rows.get("esc_1")).toMatchObject({ status: "decided", decidedBy: "ann" });
  });

  it("undo inside the window puts it back to open; a new decision is then possible", async () => {
    const s = fakeStore();
    await decideEscalation({ input: parse({ undoSeconds: 10, guidance: "g" }), actor: "ann", ports: s.decide });
    s.tick(9_999);
    // Another handler cannot take back ann's decision (a race loser must not undo the winner).
    const byBob = await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "bob", ports: s.decide }));
    expect(byBob.message).toBe("escalation esc_1: only ann, who decided (resume by ann), can undo it");
    expect(s.rows.get("esc_1")).toMatchObject({ status: "decided", decision: "resume" });
    const undone = await undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide });
    expect(undone).toMatchObject({ undone: "resume", decidedBy: "ann", undoneBy: "ann" });
    expect(s.rows.get("esc_1")).toMatchObject({ status: "open", decision: null, applyAfter: null, guidance: null });
    await decideEscalation({ input: parse({ decision: "cancel" }), actor: "bob", ports: s.decide });
    expect(s.rows.get("esc_1")).toMatchObject({ status: "applied", decision: "cancel" });
  });

  it("undo at or after the end of the window is CONFLICT; once applied it says when", async () => {
    const s = fakeStore();
    const res = await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    s.tick(10_000);
    const notYetApplied = await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }));
    expect(notYetApplied.code).toBe("CONFLICT");
    expect(notYetApplied.message).toBe(
      `escalation esc_1: too late to undo resume by ann: its undo window ended at ${isoUtc(res.applyAt!)} and it is being applied`,
    );
    s.tick(200);
    s.applyDue("esc_1");
    const applied = await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }));
    expect(applied.code).toBe("CONFLICT");
    expect(applied.message).toBe(`escalation esc_1: resume by ann was already applied at 1970-01-01T00:16:50Z: too late to undo`);
    expect(s.rows.get("esc_1")!.status).toBe("applied");
  });

  it("undo of an immediate decision or of an open escalation is CONFLICT; of an unknown one NOT_FOUND", async () => {
    const s = fakeStore();
    expect((await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }))).message).toMatch(/no decision to undo/);
    expect((await errorOf(undoEscalationDecision({ input: { escalationId: "esc_x" }, actor: "ann", ports: s.decide }))).code).toBe("NOT_FOUND");
    await decideEscalation({ input: parse({ decision: "dead_end", deadEndReason: "r" }), actor: "ann", ports: s.decide });
    expect((await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }))).message).toMatch(
      /dead end by ann was already applied at .*too late to undo/,
    );
  });

  it("a second decision inside the window is CONFLICT naming who decided and when it applies", async () => {
    const s = fakeStore();
    const first = await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    const err = await errorOf(decideEscalation({ input: parse({ decision: "cancel", undoSeconds: 10 }), actor: "bob", ports: s.decide }));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe(`escalation esc_1 is already decided (resume by ann, applies at ${isoUtc(first.applyAt!)})`);
  });

  /** The store's decide ports with an escalation.decided send that runs `meanwhile`, then fails. */
  const failingSend = (s: ReturnType<typeof fakeStore>, meanwhile: () => Promise<unknown> = async () => {}): DecidePorts => ({
    ...s.decide,
    sendDecided: async () => {
      await meanwhile();
      throw new Error("ECONNREFUSED");
    },
  });

  it("when escalation.decided cannot be sent the decision is taken back and the call fails UNAVAILABLE", async () => {
    const s = fakeStore();
    const ports = failingSend(s);
    const err = await errorOf(decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports }));
    expect(err.code).toBe("UNAVAILABLE");
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(s.rows.get("esc_1")).toMatchObject({ status: "open", decision: null });
  });

  it("a decision applied by its decider's Apply now while escalation.decided hung is kept: the failed send is no failure", async () => {
    const s = fakeStore();
    // The card showed the recorded decision and its Apply now was clicked before this send gave up.
    const ports = failingSend(s, () => applyDecisionNow({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }));
    const res = await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports });
    expect(res).toEqual({ escalationId: "esc_1", decision: "resume", applyAt: null, undoSeconds: 0 });
    expect(s.rows.get("esc_1")).toMatchObject({ status: "applied", decision: "resume" });
  });

  it("a later decision of the same handler, made after undoing the one whose send hung, is not taken for it", async () => {
    const s = fakeStore();
    const ports = failingSend(s, async () => {
      await undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide });
      s.tick(1_000);
      await decideEscalation({ input: parse({ decision: "cancel", undoSeconds: 10 }), actor: "ann", ports: s.decide });
    });
    const err = await errorOf(decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports }));
    expect(err.code).toBe("UNAVAILABLE");
    expect(s.rows.get("esc_1")).toMatchObject({ status: "decided", decision: "cancel" });
  });

  it("validates undoSeconds: a whole number from 0 to 60, named in the message", () => {
    const bad = (v: unknown) => decideEscalationInputSchema.safeParse({ escalationId: "esc_1", decision: "resume", undoSeconds: v });
    expect(bad(61).error?.issues[0]?.message).toBe("undoSeconds: at most 60");
    expect(bad(-1).error?.issues[0]?.message).toBe("undoSeconds: at least 0");
    expect(bad(1.5).error?.issues[0]?.message).toBe("undoSeconds: a whole number of seconds");
    expect(bad("10").error?.issues[0]?.message).toBe("undoSeconds: a whole number of seconds");
    expect(bad(60).success).toBe(true);
    expect(decideEscalationInputSchema.parse({ escalationId: "esc_1", decision: "resume" }).undoSeconds).toBe(0);
  });
});

describe("claims", () => {
  it("a claim shows who is on it; someone else needs an explicit take-over naming the holder", async () => {
    const s = fakeStore();
    expect(await claimEscalation({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.claim })).toMatchObject({ claimedBy: "ann" });
    // Claiming your own claim again is a no-op.
    expect(await claimEscalation({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.claim })).toMatchObject({ claimedBy: "ann" });
    const refused = await errorOf(claimEscalation({ input: { escalationId: "esc_1" }, actor: "bob", ports: s.claim }));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(/^ann is on this since .*: take it over explicitly \(takeOverFrom: "ann"\)$/);
    // A take-over from someone who no longer holds it is refused (the caller saw a stale claim).
    const stale = await errorOf(claimEscalation({ input: { escalationId: "esc_1", takeOverFrom: "carl" }, actor: "bob", ports: s.claim }));
    expect(stale.message).toBe("ann is on this now, not carl: look again before taking it over");
    expect(await claimEscalation({ input: { escalationId: "esc_1", takeOverFrom: "ann" }, actor: "bob", ports: s.claim })).toMatchObject({ claimedBy: "bob" });
    expect(s.rows.get("esc_1")!.claimedBy).toBe("bob");
  });

  it("only the holder releases; deciding another's claim needs a take-over; a closed escalation cannot be claimed", async () => {
    const s = fakeStore();
    await claimEscalation({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.claim });
    expect((await errorOf(releaseEscalation({ input: { escalationId: "esc_1" }, actor: "bob", ports: s.claim }))).message).toMatch(/claimed by ann, not bob/);
    // bob cannot decide what ann holds: 409 naming her and how to take over
    const refused = await errorOf(decideEscalation({ input: parse({}), actor: "bob", ports: s.decide }));
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(
      /^escalation esc_1 is claimed by ann since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: take it over explicitly to decide it \(takeOverFrom: "ann"\)$/,
    );
    expect(s.rows.get("esc_1")).toMatchObject({ status: "open", claimedBy: "ann" });
    // a take-over from someone who does not hold it is refused too
    expect((await errorOf(decideEscalation({ input: parse({ takeOverFrom: "carl" }), actor: "bob", ports: s.decide }))).message).toMatch(/claimed by ann/);
    // explicitly taken over: decided, and the claim is bob's
    await decideEscalation({ input: parse({ takeOverFrom: "ann" }), actor: "bob", ports: s.decide });
    expect(s.rows.get("esc_1")).toMatchObject({ status: "applied", decidedBy: "bob", claimedBy: "bob" });
    expect((await errorOf(releaseEscalation({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.claim }))).message).toMatch(/claimed by bob, not ann/);
    expect(await releaseEscalation({ input: { escalationId: "esc_1" }, actor: "bob", ports: s.claim })).toEqual({ escalationId: "esc_1", claimedBy: null });
    expect(await releaseEscalation({ input: { escalationId: "esc_1" }, actor: "bob", ports: s.claim })).toEqual({ escalationId: "esc_1", claimedBy: null });
    expect((await errorOf(claimEscalation({ input: { escalationId: "esc_1" }, actor: "carl", ports: s.claim }))).message).toMatch(
      /is closed: resume by bob was applied at/,
    );
    expect((await errorOf(claimEscalation({ input: { escalationId: "esc_x" }, actor: "carl", ports: s.claim }))).code).toBe("NOT_FOUND");
  });
});

describe("Apply now", () => {
  const applyNow = (s: ReturnType<typeof fakeStore>, actor = "ann") => applyDecisionNow({ input: { escalationId: "esc_1" }, actor, ports: s.decide });

  it("the decider ends the window: applied in the request at once, escalation.applied sent", async () => {
    const s = fakeStore();
    await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    s.tick(2_000);
    s.events.length = 0;
    expect(await applyNow(s)).toEqual({ escalationId: "esc_1", decision: "resume", alreadyDue: false });
    expect(s.events).toEqual(["window ended by ann", "applyNow esc_1", "applied esc_1 resume"]);
    expect(s.rows.get("esc_1")).toMatchObject({ status: "applied", applyAfter: new Date(1_002_000), appliedAt: new Date(1_002_000) });
    // Too late to undo what was applied early.
    expect((await errorOf(undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide }))).message).toMatch(/already applied/);
  });

  it("someone who did not decide is refused in every state, also once the decision is applied", async () => {
    const s = fakeStore();
    await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    await applyNow(s);
    expect(s.rows.get("esc_1")!.status).toBe("applied");
    const byBob = await errorOf(applyNow(s, "bob"));
    expect(byBob.code).toBe("CONFLICT");
    expect(byBob.message).toBe("escalation esc_1: only ann, who decided (resume by ann), can apply it early");
  });

  it("a second click, or a click after the window ended, changes nothing and says it was already due", async () => {
    const s = fakeStore();
    await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    await applyNow(s);
    s.events.length = 0;
    expect(await applyNow(s)).toEqual({ escalationId: "esc_1", decision: "resume", alreadyDue: true });
    expect(s.events).toEqual([]);

    const late = fakeStore();
    await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: late.decide });
    late.tick(10_000);
    late.events.length = 0;
    expect(await applyNow(late)).toMatchObject({ alreadyDue: true });
    // Left to escalation-apply, which applies a due decision: nothing was applied by the click.
    expect(late.events).toEqual([]);
    expect(late.rows.get("esc_1")!.status).toBe("decided");
  });

  it("only the decider may apply early; an open or unknown escalation has nothing to apply", async () => {
    const s = fakeStore();
    expect((await errorOf(applyNow(s))).message).toBe("escalation esc_1 has no decision to apply (it is open)");
    expect((await errorOf(applyDecisionNow({ input: { escalationId: "esc_x" }, actor: "ann", ports: s.decide }))).code).toBe("NOT_FOUND");
    await decideEscalation({ input: parse({ undoSeconds: 10 }), actor: "ann", ports: s.decide });
    const byBob = await errorOf(applyNow(s, "bob"));
    expect(byBob.code).toBe("CONFLICT");
    expect(byBob.message).toBe("escalation esc_1: only ann, who decided (resume by ann), can apply it early");
    expect(s.rows.get("esc_1")).toMatchObject({ status: "decided", applyAfter: new Date(1_010_000) });
    // After an undo the window is gone, so Apply now finds nothing to apply.
    await undoEscalationDecision({ input: { escalationId: "esc_1" }, actor: "ann", ports: s.decide });
    expect((await errorOf(applyNow(s))).message).toMatch(/no decision to apply/);
  });
});

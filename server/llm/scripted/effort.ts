import { createHash } from "node:crypto";
import type { EffortLevel } from "../types.ts";
import type { AgentContext } from "./context.ts";

/**
 * How effort changes the scripted agents, so the effort dial has something to show offline:
 *
 * - reasoning tokens: every reply at an effort spends hidden reasoning tokens (reported in usage as
 *   `reasoning_tokens`, part of the completion tokens, priced as output as OpenAI and Anthropic bill
 *   them): about {@link REASONING_TOKENS} per level, ×1–1.5 by the seed; none when no effort is sent
 *   (the provider's default, what the scripted server always did);
 * - fumbles: at `low` effort the agent sometimes gets a decision that matters wrong — half the time,
 *   by the seed — where a careful model would not: it mistypes the recipient of the summary email, or
 *   it skips the last package reads and goes straight to the report and the email (a missed fact
 *   before a risky call). Medium and high never fumble.
 *
 * The seed is the request's content that identical work shares — the model, the goal, the facts and
 * the calls it has seen — never the ids a run mints (task, run and call ids differ from run to run):
 * the same case fumbles the same way in every repeat, so tests and benchmarks are repeatable.
 */

/** Base reasoning tokens of one reply, per level (order of magnitude of OpenAI's and Anthropic's reasoning models on an agent turn). */
export const REASONING_TOKENS: Readonly<Record<EffortLevel, number>> = { low: 128, medium: 768, high: 3072 };

/** Share of low-effort decisions that fumble (by the seed). */
export const LOW_EFFORT_FUMBLE_SHARE = 0.5;

/** A number in [0, 1) from the request's content (see the module note) and a salt naming the decision. */
export function requestSeed(model: string, ctx: AgentContext, salt: string): number {
  const digest = createHash("sha256")
    .update(JSON.stringify([model, salt, ctx.goal, Object.keys(ctx.facts).sort(), ctx.calls.map((c) => c.name), ctx.calls.length]))
    .digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** The reasoning tokens a reply at `effort` spends (0 without an effort). Deterministic. */
export function reasoningTokens(effort: EffortLevel | null, model: string, ctx: AgentContext): number {
  if (!effort) return 0;
  return Math.round(REASONING_TOKENS[effort] * (1 + requestSeed(model, ctx, "reasoning") / 2));
}

/** True when the agent fumbles `decision` at this effort: only at low, {@link LOW_EFFORT_FUMBLE_SHARE} of the time by the seed. */
export function fumbles(ctx: AgentContext, decision: "recipient" | "last_reads"): boolean {
  return ctx.effort === "low" && requestSeed(ctx.model ?? "", ctx, decision) < LOW_EFFORT_FUMBLE_SHARE;
}

/**
 * The address a hurried reader copies from the goal: the last character of the domain dropped
 * (`legal@example.com` → `legal@example.co`) — a different, real-looking recipient.
 */
export function misreadAddress(address: string): string {
  return address.slice(0, -1);
}

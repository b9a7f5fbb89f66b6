import { createHmac, timingSafeEqual } from "node:crypto";
import type { EffortLevel } from "../types.ts";
import type { AgentAction } from "./context.ts";

/**
 * The scripted model's reasoning, and the proof that it came back. A real provider returns reasoning
 * it can check when the client sends it back (OpenAI's encrypted reasoning items, Anthropic's signed
 * thinking blocks); the scripted server does the same with an HMAC under a fixed key (fixed, so
 * a block signed before a restart of the server still verifies after it, as a provider's do), and
 * refuses a block whose signature or encryption does not verify, as the providers do.
 */
const KEY = "longhaul-scripted-reasoning-v1";

/** The reasoning text of a turn: what the agent is about to do, longer at higher effort (sentences: low 1, medium 2, high 4). Pure. */
export function reasoningText(action: AgentAction, effort: EffortLevel | undefined): string {
  const calls = action.toolCalls.map((c) => c.name);
  const plan = calls.length ? `The next step is to call ${calls.join(", ")}.` : `The work is done; I answer: ${(action.content ?? "").slice(0, 120)}`;
  const sentences = [
    plan,
    "I checked the working set and the latest results before choosing it.",
    "Facts already recorded are not established again.",
    "Side effects happen once, after the facts they depend on are recorded.",
  ];
  const n = effort === "low" ? 1 : effort === "high" ? 4 : 2;
  return sentences.slice(0, n).join(" ");
}

/** Anthropic-style signature of a thinking block's text (base64). */
export function signThinking(thinking: string): string {
  return createHmac("sha256", KEY).update(`thinking\n${thinking}`).digest("base64");
}

/** True when `signature` is the scripted server's signature of `thinking`. */
export function verifyThinking(thinking: string, signature: string): boolean {
  const expected = Buffer.from(signThinking(thinking));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** OpenAI-style `encrypted_content` of a reasoning item: the text and its MAC, base64 (opaque to the client). */
export function encryptReasoning(id: string, text: string): string {
  const mac = createHmac("sha256", KEY).update(`reasoning\n${id}\n${text}`).digest("base64");
  return Buffer.from(JSON.stringify({ t: text, m: mac }), "utf8").toString("base64");
}

/** The text of an `encrypted_content` the scripted server made for item `id`, or null when it does not verify. */
export function decryptReasoning(id: string, encrypted: string): string | null {
  try {
    const { t, m } = JSON.parse(Buffer.from(encrypted, "base64").toString("utf8")) as { t?: unknown; m?: unknown };
    if (typeof t !== "string" || typeof m !== "string") return null;
    const expected = Buffer.from(createHmac("sha256", KEY).update(`reasoning\n${id}\n${t}`).digest("base64"));
    const given = Buffer.from(m);
    return expected.length === given.length && timingSafeEqual(expected, given) ? t : null;
  } catch {
    return null;
  }
}

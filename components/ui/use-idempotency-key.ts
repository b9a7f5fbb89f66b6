"use client";

import { useCallback, useState } from "react";

/** A fresh idempotency key: 128 random bits as 32 hex characters (getRandomValues works outside secure contexts too, unlike randomUUID). */
export function newIdempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The idempotency key of one action the user is about to take, made when the dialog or form opens
 * and sent with its mutation: however many times the button is pressed (a double click, a click
 * while the first request is on its way), the server acts once and answers each with the first
 * result. `renew` makes a new one for a new action in the same form (e.g. deciding again after an undo).
 */
export function useIdempotencyKey(): [string, () => void] {
  const [key, setKey] = useState(newIdempotencyKey);
  const renew = useCallback(() => setKey(newIdempotencyKey()), []);
  return [key, renew];
}

/**
 * Joining people's words into the app's own sentences without doubled punctuation (a
 * guidance or note that ended in "." became ".." in the message around it). Pure.
 */

/** Closing punctuation a sentence may already end with (ASCII and the ellipsis character). */
const CLOSED = /[.!?…]["')\]]*$/u;

/** `text` trimmed, without its final full stops (a "!" or "?" is kept): for text followed by ". …". */
export function withoutFinalStop(text: string): string {
  return text.trim().replace(/\.+$/u, "").trimEnd();
}

/** `text` trimmed, ending in closing punctuation: a full stop is added only when it has none. */
export function asSentence(text: string): string {
  const t = text.trim();
  return t === "" || CLOSED.test(t) ? t : `${t}.`;
}

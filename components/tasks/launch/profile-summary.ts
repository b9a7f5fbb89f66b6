/** Most characters of a profile's line in the launch form's picker. */
const SUMMARY_CHARS = 110;

/**
 * A profile's line in the launch form's picker: its name and what it is — the first sentence of
 * its description (the seeded offline profiles say what they play there: "the competent demo
 * agent…", "the loop agent…"), else its model — so every choice says what it is before it is
 * picked. Cut at a word to {@link SUMMARY_CHARS} characters. Pure, client-safe.
 */
export function profileOptionLabel(p: { name: string; description: string; model: string }): string {
  const first =
    p.description
      .trim()
      .split(/(?<=[.!?])\s/)[0]
      ?.replace(/[.!?]$/, "") ?? "";
  const what = first || p.model;
  const cut = what.length > SUMMARY_CHARS ? `${what.slice(0, what.lastIndexOf(" ", SUMMARY_CHARS - 1))}…` : what;
  return `${p.name} — ${cut}`;
}

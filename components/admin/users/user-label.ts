/**
 * A user as one phrase, "Name (email)": the email once, also when the display name already carries
 * it (server/auth/auth.ts `uniqueDisplayName` makes a taken name unique as `name (email)`).
 * Pure; `name` and `email` as stored.
 */
export function userLabel(name: string, email: string): string {
  return name.toLowerCase().includes(`(${email.toLowerCase()})`) ? name : `${name} (${email})`;
}

/** Where the license-audit demo mails its summary when the launch names no recipient (inside the default egress policy, example.com). */
export const DEMO_DEFAULT_EMAIL = "compliance@example.com";

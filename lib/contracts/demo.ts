import { MAX_STEP_BUDGET } from "./limits.ts";

/** Where the license-audit demo mails its summary when the launch names no recipient (inside the default egress policy, example.com). */
export const DEMO_DEFAULT_EMAIL = "compliance@example.com";

/**
 * Default step budget of the license-audit demo: measured runs take ~2.7–2.9 model+tool steps per
 * package (509 packages: 1,395 steps; 300: 862) plus ~30 for listing and reporting; this leaves a
 * margin of about 10 %. Capped at the launch's maximum ({@link MAX_STEP_BUDGET}).
 */
export const DEMO_STEPS_PER_PACKAGE = 3.2;
export const DEMO_STEPS_BASE = 80;
/** The demo's default step budget for `limit` packages (steps). */
export function demoStepBudget(limit: number): number {
  return Math.min(MAX_STEP_BUDGET, Math.ceil(limit * DEMO_STEPS_PER_PACKAGE) + DEMO_STEPS_BASE);
}

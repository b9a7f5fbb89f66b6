import { request, type FullConfig } from "@playwright/test";
import { E2E_ADMIN, e2eAdminStatePath } from "./helpers.ts";

/**
 * Runs once after the web server is up (Playwright starts webServer before globalSetup): signs up
 * the first user of the fresh data folder — who becomes admin with every role — and saves the
 * session as the storageState every spec starts with (playwright.config.ts `use.storageState`), so
 * specs run signed in without doing anything. Per-role specs make their own contexts.
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error("playwright.config.ts: use.baseURL is required");
  const api = await request.newContext({ baseURL });
  let res = await api.post("/api/auth/sign-up/email", { data: E2E_ADMIN });
  // A reused data folder already has the admin: sign in instead.
  if (!res.ok()) res = await api.post("/api/auth/sign-in/email", { data: { email: E2E_ADMIN.email, password: E2E_ADMIN.password } });
  if (!res.ok()) throw new Error(`e2e global setup: could not sign up or sign in ${E2E_ADMIN.email}: ${res.status()} ${await res.text()}`);
  const me = await api.get(`/api/trpc/account.me?input=${encodeURIComponent(JSON.stringify({ json: null }))}`);
  const roles = ((await me.json()) as { result?: { data?: { json?: { roles?: string[] } } } }).result?.data?.json?.roles ?? [];
  if (!roles.includes("admin"))
    throw new Error(`e2e global setup: ${E2E_ADMIN.email} is not admin (roles: ${roles.join(", ") || "none"}); the data folder must be fresh`);
  await api.storageState({ path: e2eAdminStatePath() });
  await api.dispose();
}

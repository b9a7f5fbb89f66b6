import { createInngestClient } from "./sdk-transport.ts";

/**
 * Longhaul's Inngest client. Mode and endpoints come from Inngest's own env vars (INNGEST_BASE_URL,
 * INNGEST_SIGNING_KEY, INNGEST_EVENT_KEY, INNGEST_DEV): against the embedded executor the start
 * script sets INNGEST_BASE_URL to it and shares the keys, exactly as for self-hosted Inngest
 * (docs/INNGEST-PROTOCOL.md §6); Inngest Cloud needs only its keys. Dev mode is never the default.
 * Its transport (node:http for plain-HTTP API calls, the environment name computed once) is
 * sdk-transport.ts `createInngestClient`, measured there.
 */
export const inngest = createInngestClient({ id: "longhaul" });

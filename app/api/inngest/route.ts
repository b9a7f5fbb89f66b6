import { serve } from "inngest/next";
import { inngest } from "@/server/inngest/client.ts";
import { functions } from "@/server/inngest/functions/index.ts";

export const dynamic = "force-dynamic";
// Agent steps can run long (model calls); the executor allows up to 2 h per request.
export const maxDuration = 7200;

// Signed requests only (INNGEST_SIGNING_KEY): step calls (POST) always were; `enableUnauthedSync:
// false` makes a sync (PUT) and the introspection GET need the signature too, so an unsigned PUT
// cannot make the app re-register itself (out of band, with a URL taken from the request's Host)
// — the executor syncs in band with a signed PUT.
export const { GET, POST, PUT } = serve({ client: inngest, functions, enableUnauthedSync: false });

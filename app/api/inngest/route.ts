import { serve } from "inngest/next";
import { inngest } from "@/server/inngest/client.ts";
import { functions } from "@/server/inngest/functions/index.ts";

export const dynamic = "force-dynamic";
// Agent steps can run long (model calls); the executor allows up to 2 h per request.
export const maxDuration = 7200;

export const { GET, POST, PUT } = serve({ client: inngest, functions });

/**
 * zod for the contracts the pages import too (lib/contracts/mcp.ts): import `z` from
 * here, not from "zod", in any module a client component reaches. zod 4 probes `new Function("")`
 * when it builds an object schema (its JIT fast path); under the pages' CSP (proxy.ts: script-src
 * without 'unsafe-eval') the probe throws, zod catches it, and the browser still reports a
 * `securitypolicyviolation` and a console error on every page that loads such a module. In the
 * browser zod runs jitless (no probe, no eval); the server keeps the JIT. This module's body runs
 * before the importing module builds its schemas (ES module order), so the setting holds for them.
 */
import { z } from "zod";

if (typeof window !== "undefined") z.config({ jitless: true });

export { z };

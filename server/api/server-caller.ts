import { headers } from "next/headers";
import { cache } from "react";
import { appRouter } from "./root.ts";
import { createCallerFactory, createTRPCContext } from "./trpc.ts";

const createCaller = createCallerFactory(appRouter);

/**
 * The tRPC caller of the request being rendered (create-t3-app's server-side caller): a server
 * component calls procedures directly — same input schemas, role checks and error mapping as over
 * HTTP, with the request's own cookie and Authorization header — instead of a loopback HTTP call.
 * One caller per request (React `cache`). Server components only; the browser uses the tRPC client.
 */
export const serverCaller = cache(async () => createCaller(await createTRPCContext({ headers: new Headers(await headers()) })));

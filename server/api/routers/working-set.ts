import { createTRPCRouter } from "../trpc.ts";

/** Working-set history of a task (step-by-step fact changes). */
export const workingSetRouter = createTRPCRouter({});

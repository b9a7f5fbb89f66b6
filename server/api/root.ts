import { accountRouter } from "./routers/account.ts";
import { adminRouter } from "./routers/admin.ts";
import { costRouter } from "./routers/cost.ts";
import { demoRouter } from "./routers/demo.ts";
import { escalationRouter } from "./routers/escalation.ts";
import { mcpServerRouter } from "./routers/mcp-server.ts";
import { evalRouter } from "./routers/eval.ts";
import { profileRouter } from "./routers/profile.ts";
import { taskRouter } from "./routers/task.ts";
import { templateRouter } from "./routers/template.ts";
import { workingSetRouter } from "./routers/working-set.ts";
import { createCallerFactory, createTRPCRouter } from "./trpc.ts";

export const appRouter = createTRPCRouter({
  task: taskRouter,
  profile: profileRouter,
  demo: demoRouter,
  escalation: escalationRouter,
  workingSet: workingSetRouter,
  account: accountRouter,
  admin: adminRouter,
  cost: costRouter,
  mcpServer: mcpServerRouter,
  eval: evalRouter,
  template: templateRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createPrismaClient, type PrismaClient } from "../../server/db/client.ts";
import type { Escalation } from "../../server/db/generated/client.ts";
import { prismaDecidePorts } from "../../server/db/escalation-repository.ts";
import { prismaLaunchPorts } from "../../server/db/launch-ports.ts";
import { launchTools } from "../../server/tools/launch-tools.ts";
import { seedDefaults } from "../../server/db/seed.ts";
import { decideEscalation, decideEscalationInputSchema, type DecidePorts } from "../../server/domain/decide-escalation.ts";
import { launchTask, launchTaskInputSchema } from "../../server/domain/launch-task.ts";
import { startScriptedModelServer, type FaultSpec, type ScriptedModelServer } from "../../server/llm/scripted/server.ts";
import { TEST_EVENT_KEY, TEST_SIGNING_KEY, waitFor } from "./executor-harness.ts";
import { childNodeArgs, type ChildEntry } from "./child-bundles.ts";
import { freePort } from "./ports.ts";

/** Root of this checkout: the children's working directory. */
const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
/** The demo's workspace, this checkout (its node_modules is the data the agent audits). */
export const WORKSPACE = REPO_ROOT;

/** Inngest function id of `agent-run` as the executor registers it (`<appId>-<fnId>`). */
export const AGENT_RUN_FUNCTION_ID = "longhaul-agent-run";

/** One child process of the stack (the app or the executor) with its captured output. */
export interface StackChild {
  name: "app" | "executor";
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** True until the process has exited. */
  alive: () => boolean;
}

/** The real pieces of Longhaul for one test file (see {@link startAgentStack}). */
export interface AgentStack {
  databaseUrl: string;
  db: PrismaClient;
  model: ScriptedModelServer;
  /** `http://127.0.0.1:<port>` of the executor (fixed for the stack's lifetime, also across restarts). */
  executorUrl: string;
  /** `http://127.0.0.1:<port>/api/inngest` of the app (fixed across restarts). */
  appUrl: string;
  /** The current app / executor child (replaced by startApp / startExecutor). */
  app: () => StackChild | undefined;
  executor: () => StackChild | undefined;
  /** Spawns the app child (`LONGHAUL_CRASH_AT` from `crashAt`, more variables in `env`) and waits until it answers. @throws when one is running. */
  startApp: (options?: { crashAt?: string; env?: Record<string, string> }) => Promise<StackChild>;
  /** Spawns the executor child (`crashAt` → LONGHAUL_CRASH_AT) and waits until it answers /health and has synced the app. */
  startExecutor: (options?: { crashAt?: string; waitForSync?: boolean }) => Promise<StackChild>;
  /** Starts the app and/or the executor (without crash points) when not running, so a test does not inherit an earlier test's failure. */
  ensureUp: () => Promise<void>;
  /** Sends `signal` (default SIGKILL) to the child and waits for it to exit; returns its exit code. */
  kill: (which: "app" | "executor", signal?: NodeJS.Signals) => Promise<number | null>;
  /** Arms faults on the scripted model server (`POST /control/faults`). */
  armFaults: (faults: FaultSpec | FaultSpec[]) => Promise<void>;
  /**
   * Posts one event `{ name, data, id? }` to the executor's event API (`POST <executorUrl>/e/<TEST_EVENT_KEY>`),
   * as server/inngest/send.ts does (the id, when given, is the executor's dedupe key).
   * @throws when the event API does not answer `{ status: 200 }`.
   */
  sendEvent: (name: string, data: Record<string, unknown>, id?: string) => Promise<void>;
  /**
   * Launches a task through the real launch domain: `launchTask` with `input` parsed by
   * `launchTaskInputSchema`, over `prismaLaunchPorts` (default workspace {@link WORKSPACE}), sending
   * `longhaul/run.started` with id `run-started-<runId>` to this stack's executor (`smoke`: a profile
   * smoke test, as profile.smoke launches it). Returns the ids.
   * @throws AppError as launchTask does (BAD_INPUT, UNAVAILABLE …), ZodError for invalid input.
   */
  launch: (options: { input: Record<string, unknown>; actor: string; smoke?: { includeSideEffects: boolean } }) => Promise<{ taskId: string; runId: string }>;
  /** Launches the license-audit demo (`limit` packages) as actor `agent-test` through {@link AgentStack.launch}; returns the ids. */
  launchDemo: (options: { limit: number }) => Promise<{ taskId: string; runId: string }>;
  /**
   * The real decision ports (`prismaDecidePorts`) over this stack's database, sending what
   * server/inngest/send.ts sends to this stack's executor: `longhaul/escalation.applied`,
   * `longhaul/escalation.decided` (id `escalation-decided-<escalationId>-<applyAt ms>`) and
   * `longhaul/run.started` (id `run-started-<runId>`).
   */
  decidePorts: () => DecidePorts;
  /**
   * Decides an escalation through the real domain: `decideEscalation` with `input` parsed by
   * `decideEscalationInputSchema`, as `actor`, over {@link AgentStack.decidePorts}. Returns what decideEscalation returns.
   * @throws AppError as decideEscalation does (NOT_FOUND, CONFLICT, BAD_INPUT, UNAVAILABLE), ZodError for invalid input.
   */
  decide: (options: { input: Record<string, unknown>; actor: string }) => ReturnType<typeof decideEscalation>;
  /** Polls (every 100 ms, up to `timeoutMs`, default 60 s) until the task has an open escalation; returns its row. */
  waitForOpenEscalation: (taskId: string, timeoutMs?: number) => Promise<Escalation>;
  /** Polls the task until its status is one of `statuses` (default: any terminal status) or throws after `timeoutMs`. */
  waitForTaskStatus: (taskId: string, statuses?: string[], timeoutMs?: number) => Promise<string>;
  /**
   * Polls the executor's runs of `agent-run` for Longhaul run `runId` until every segment has ended
   * (completed/failed/cancelled) and the last one did not continue as new; returns the last one's status.
   */
  waitForExecutorRun: (runId: string, timeoutMs?: number) => Promise<string>;
  /** Stops every child this stack spawned (SIGTERM, then SIGKILL after 5 s), the model server and the DB client. Returns the children still alive afterwards (must be none). */
  stop: () => Promise<StackChild[]>;
}

/**
 * Longest a child may take to start (listen, answer /health, sync) while it is alive: the waits end as
 * soon as it is up or has exited (both observed); this only bounds a child that hangs. Loading the
 * app's module graph takes about 2 s of CPU from its bundle and 4 s through tsx, which a shared, loaded
 * machine stretched past 30 s.
 */
const CHILD_START_MS = 180_000;

const TERMINAL_TASK_STATUSES = ["completed", "dead_end", "failed", "cancelled", "waiting_for_human"];

function spawnChild(name: StackChild["name"], script: ChildEntry, env: Record<string, string | undefined>): StackChild {
  const child = spawn(process.execPath, childNodeArgs(script), {
    cwd: REPO_ROOT,
    env: { ...process.env, INNGEST_DEV: undefined, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const onData = (d: Buffer) => {
    out += d.toString();
    if (process.env.AGENT_STACK_LOG) process.stderr.write(`[${name}:${child.pid}] ${d.toString()}`);
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, child, output: () => out, exited, alive: () => child.exitCode === null && child.signalCode === null };
}

/**
 * Starts, for one test file, the real pieces on free ports against the test database
 * (`databaseUrl`, migrated by tests/support/global-setup.ts): the scripted model server in process,
 * the app (tests/support/serve-functions.ts: the real `agent-run` function behind `serve`) as a child
 * process, and the embedded executor (`server/executor/main.ts`) as a child process, signed with the
 * test keys, with a short retry backoff (EXECUTOR_BACKOFF_MS 50,100,200) and a short wait between its
 * failed syncs of the app (EXECUTOR_SYNC_RETRY_MS 100). Seeds the agent profiles.
 * Resolves once the executor has synced the app's functions.
 */
export async function startAgentStack({ databaseUrl }: { databaseUrl: string }): Promise<AgentStack> {
  const db = createPrismaClient(databaseUrl);
  await seedDefaults(db);
  const model = await startScriptedModelServer({ port: await freePort() });
  const appPort = await freePort();
  const executorPort = await freePort();
  const executorUrl = `http://127.0.0.1:${executorPort}`;
  const appUrl = `http://127.0.0.1:${appPort}/api/inngest`;
  let app: StackChild | undefined;
  let executor: StackChild | undefined;
  const spawned: StackChild[] = [];

  const stack: AgentStack = {
    databaseUrl,
    db,
    model,
    executorUrl,
    appUrl,
    app: () => app,
    executor: () => executor,

    async startApp({ crashAt, env: extraEnv } = {}) {
      if (app?.alive()) throw new Error("the app is already running");
      const started = spawnChild("app", "tests/support/serve-functions.ts", {
        APP_PORT: String(appPort),
        DATABASE_URL: databaseUrl,
        INNGEST_BASE_URL: executorUrl,
        INNGEST_SIGNING_KEY: TEST_SIGNING_KEY,
        INNGEST_EVENT_KEY: TEST_EVENT_KEY,
        MODEL_PORT: String(model.port),
        OPENAI_API_KEY: undefined,
        OPENAI_BASE_URL: undefined,
        LONGHAUL_WORKSPACE: WORKSPACE,
        LONGHAUL_CRASH_AT: crashAt ?? "",
        ...extraEnv,
      });
      app = started;
      spawned.push(started);
      await waitFor(
        "the app child to listen",
        () => {
          if (!started.alive()) throw new Error(`app exited: ${started.output()}`);
          return started.output().includes("[app] listening on");
        },
        CHILD_START_MS,
        50,
      );
      return started;
    },

    async startExecutor({ crashAt, waitForSync = true } = {}) {
      if (executor?.alive()) throw new Error("the executor is already running");
      const syncedBefore = new Date();
      const started = spawnChild("executor", "server/executor/main.ts", {
        DATABASE_URL: databaseUrl,
        EXECUTOR_PORT: String(executorPort),
        INNGEST_SIGNING_KEY: TEST_SIGNING_KEY,
        INNGEST_EVENT_KEY: TEST_EVENT_KEY,
        EXECUTOR_SDK_URL: appUrl,
        EXECUTOR_BACKOFF_MS: "50,100,200",
        // The app child boots slower than the executor: sync it as soon as it listens, not up to 2 s later.
        EXECUTOR_SYNC_RETRY_MS: "100",
        LONGHAUL_CRASH_AT: crashAt ?? "",
      });
      executor = started;
      spawned.push(started);
      await waitFor(
        "the executor child to answer /health",
        async () => {
          if (!started.alive()) throw new Error(`executor exited: ${started.output()}`);
          const res = await fetch(`${executorUrl}/health`).catch(() => undefined);
          return res?.status === 200;
        },
        CHILD_START_MS,
        50,
      );
      if (waitForSync) {
        // Registered by this executor from this stack's app (another file's stack may have registered the same id).
        await waitFor(
          "the executor to sync the app",
          async () => {
            if (!started.alive()) throw new Error(`executor exited: ${started.output()}`);
            const fn = await db.executorFunction.findUnique({ where: { id: AGENT_RUN_FUNCTION_ID }, include: { app: true } });
            return fn !== null && fn.url.startsWith(appUrl) && fn.app.syncedAt >= syncedBefore;
          },
          CHILD_START_MS,
          50,
        );
      }
      return started;
    },

    async ensureUp() {
      await Promise.all([app?.alive() ? undefined : stack.startApp(), executor?.alive() ? undefined : stack.startExecutor()]);
    },

    async kill(which, signal = "SIGKILL") {
      const target = which === "app" ? app : executor;
      if (!target) throw new Error(`no ${which} was started`);
      if (target.alive()) target.child.kill(signal);
      return target.exited;
    },

    async armFaults(faults) {
      const res = await fetch(`${model.url}/control/faults`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(faults) });
      if (res.status !== 201) throw new Error(`arming faults failed: HTTP ${res.status} ${await res.text()}`);
    },

    async sendEvent(name, data, id) {
      // As the app's inngest.send does (the SDK's retryWithBackoff: 5 attempts from 100 ms): a 500
      // from the event API is tried again with the same body, which the event id deduplicates.
      let answer = "";
      for (let attempt = 0; attempt < 5; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 1)));
        const res = await fetch(`${executorUrl}/e/${TEST_EVENT_KEY}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify([{ name, data, ...(id ? { id } : {}) }]),
        });
        const body = (await res.json()) as { status?: number };
        if (body.status === 200) return;
        answer = JSON.stringify(body);
        if (res.status < 500) break;
      }
      throw new Error(`event API answered ${answer}`);
    },

    async launch({ input, actor, smoke }) {
      const ports = prismaLaunchPorts({
        prisma: db,
        tools: launchTools,
        defaultWorkspace: WORKSPACE,
        sendRunStarted: ({ taskId, runId }) => stack.sendEvent("longhaul/run.started", { taskId, runId }, `run-started-${runId}`),
      });
      const { taskId, runId } = await launchTask({ input: launchTaskInputSchema.parse(input), actor, ports, ...(smoke ? { smoke } : {}) });
      return { taskId, runId };
    },

    async launchDemo({ limit }) {
      return stack.launch({ input: { demo: { kind: "license-audit", limit } }, actor: "agent-test" });
    },

    decidePorts() {
      return prismaDecidePorts({
        prisma: db,
        sendApplied: (e) => stack.sendEvent("longhaul/escalation.applied", e),
        sendDecided: (e) => stack.sendEvent("longhaul/escalation.decided", e, `escalation-decided-${e.escalationId}-${new Date(e.applyAt).getTime()}`),
        sendRunStarted: ({ taskId, runId, checkpointId }) => stack.sendEvent("longhaul/run.started", { taskId, runId, checkpointId }, `run-started-${runId}`),
      });
    },

    async decide({ input, actor }) {
      return decideEscalation({ input: decideEscalationInputSchema.parse(input), actor, ports: stack.decidePorts() });
    },

    async waitForOpenEscalation(taskId, timeoutMs = 60_000) {
      return waitFor(
        `an open escalation of ${taskId}`,
        async () => (await db.escalation.findFirst({ where: { taskId, status: "open" } })) ?? undefined,
        timeoutMs,
        100,
      );
    },

    async waitForTaskStatus(taskId, statuses = TERMINAL_TASK_STATUSES, timeoutMs = 60_000) {
      let last = "missing";
      try {
        return await waitFor(
          `task ${taskId} to reach ${statuses.join("|")}`,
          async () => {
            const task = await db.task.findUnique({ where: { id: taskId }, select: { status: true } });
            last = task?.status ?? "missing";
            return task && statuses.includes(task.status) ? task.status : undefined;
          },
          timeoutMs,
          100,
        );
      } catch (error) {
        // Say what the processes were doing: the tails of their logs.
        const tail = (c: StackChild | undefined) => (c ? `--- ${c.name} (${c.alive() ? "alive" : "exited"}):\n${c.output().slice(-3000)}` : "");
        throw new Error(`${error instanceof Error ? error.message : String(error)}; task status ${last}\n${tail(app)}\n${tail(executor)}`, { cause: error });
      }
    },

    async waitForExecutorRun(runId, timeoutMs = 60_000) {
      return waitFor(
        `the executor's runs of agent-run for ${runId} to end`,
        async () => {
          const segments = await findExecutorRuns(db, runId);
          const last = segments.at(-1);
          if (!last || !segments.every((r) => ["completed", "failed", "cancelled"].includes(r.status))) return undefined;
          return (last.output as { status?: string } | null)?.status === "continued" ? undefined : last.status;
        },
        timeoutMs,
        100,
      );
    },

    async stop() {
      await Promise.all(
        spawned.map(async (c) => {
          if (!c.alive()) return;
          c.child.kill("SIGTERM");
          const timer = setTimeout(() => c.child.kill("SIGKILL"), 5_000);
          await c.exited;
          clearTimeout(timer);
        }),
      );
      await model.stop();
      await db.$disconnect();
      return spawned.filter((c) => c.alive());
    },
  };

  // Both at once: the executor retries its in-band sync until the app answers.
  try {
    await Promise.all([stack.startApp(), stack.startExecutor()]);
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return stack;
}

/** Polls `check` until it holds or `timeoutMs` passes (re-export of the executor harness's waitFor). */
export { waitFor };

/** One executor run of `agent-run` (a segment of a Longhaul run). */
export interface ExecutorSegment {
  id: string;
  status: string;
  output: unknown;
}

/**
 * The executor's runs of `agent-run` for Longhaul run `runId` (their event's data.runId), oldest
 * first: one per segment, since the run continues as new at each checkpoint (`longhaul/run.continued`).
 */
export async function findExecutorRuns(db: PrismaClient, runId: string): Promise<ExecutorSegment[]> {
  return db.$queryRaw<ExecutorSegment[]>`
    SELECT id, status, output FROM executor_run
    WHERE "functionId" = ${AGENT_RUN_FUNCTION_ID} AND event->'data'->>'runId' = ${runId}
    ORDER BY "createdAt", id`;
}

/** Everything a run left in the database, for the assertions of the agent tests. */
export interface RunEvidence {
  task: { status: string; error: string | null };
  steps: { stepId: string; kind: string; tool: string | null; status: string; attempts: number; output: unknown }[];
  modelCalls: {
    stepId: string;
    attempt: number;
    status: string;
    httpStatus: number | null;
    billed: boolean;
    cause: string;
    latencyMs: number;
    createdAt: Date;
  }[];
  outbox: { stepId: string; messageId: string; to: string }[];
  sideEffects: { stepId: string; tool: string; status: string; result: unknown; repeats: number }[];
  /** Content of the licenses.csv artifact, or null. */
  csv: string | null;
  /** The executor's runs of `agent-run` for this run, one per segment, oldest first. */
  segments: ExecutorSegment[];
  /** The last segment, or null. */
  executorRun: ExecutorSegment | null;
  /** Memoized step results of all segments by step name (model/tool/checkpoint ids are unique within a run). */
  memoized: Map<string, unknown>;
}

/**
 * Model calls that were not useful work: anything but one successful call per model step (cause
 * `productive`) or per checkpoint step (cause `checkpoint`, the model-written summary) — retries,
 * replays, discarded calls, and any second call of the same step.
 */
export function wastedModelCalls(ev: RunEvidence): string[] {
  const seen = new Set<string>();
  const wasted: string[] = [];
  for (const c of ev.modelCalls) {
    const useful = c.status === "ok" && (c.cause === "productive" || (c.cause === "checkpoint" && c.stepId.startsWith("checkpoint-")));
    if (!useful || seen.has(c.stepId)) wasted.push(`${c.stepId} ${c.status} ${c.cause} attempt ${c.attempt}`);
    seen.add(c.stepId);
  }
  return wasted;
}

/** Loads a run's Step, ModelCall, outbox, ledger and artifact rows, and the executor's runs (segments) and memoized steps. */
export async function loadRunEvidence(db: PrismaClient, { taskId, runId }: { taskId: string; runId: string }): Promise<RunEvidence> {
  const task = await db.task.findUniqueOrThrow({ where: { id: taskId }, select: { status: true, error: true } });
  const steps = await db.step.findMany({
    where: { runId },
    orderBy: { index: "asc" },
    select: { stepId: true, kind: true, tool: true, status: true, attempts: true, output: true },
  });
  const modelCalls = await db.modelCall.findMany({
    where: { runId },
    orderBy: { createdAt: "asc" },
    select: { stepId: true, attempt: true, status: true, httpStatus: true, billed: true, cause: true, latencyMs: true, createdAt: true },
  });
  const outbox = await db.outboxMessage.findMany({ where: { taskId }, select: { stepId: true, messageId: true, to: true } });
  const sideEffects = await db.sideEffect.findMany({ where: { taskId }, select: { stepId: true, tool: true, status: true, result: true, repeats: true } });
  const artifact = await db.artifact.findFirst({ where: { taskId, name: "licenses.csv" }, orderBy: { createdAt: "desc" } });
  const segments = await findExecutorRuns(db, runId);
  const memoized = new Map<string, unknown>();
  for (const r of await db.executorStepResult.findMany({ where: { runId: { in: segments.map((x) => x.id) } }, orderBy: { seq: "asc" } }))
    memoized.set(r.name, r.value);
  return {
    task,
    steps,
    modelCalls,
    outbox,
    sideEffects,
    csv: artifact?.content ?? null,
    segments,
    executorRun: segments.at(-1) ?? null,
    memoized,
  };
}

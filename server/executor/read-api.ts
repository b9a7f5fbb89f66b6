import { buildSchema, graphql, GraphQLScalarType, type GraphQLSchema } from "graphql";
import type { PrismaClient } from "../db/client.ts";
import { isJsonObject } from "../db/json-codec.ts";
import { TERMINAL } from "./engine/context.ts";
import { executorEventRawJson, executorRunEventJson, executorStepValueJson } from "./json-columns.ts";

/**
 * The Inngest dev server's read API, served by the executor on its own port (docs/INNGEST-PROTOCOL.md
 * Appendix): the REST run views (`GET /v1/runs/{id}`, `GET /v1/events/{id}/runs`) with Inngest's
 * status names, and a subset of the dev server's GraphQL schema at `POST /v0/gql`, parsed,
 * validated and executed by the reference `graphql` package (named operations, variables,
 * aliases and fragments work as with any GraphQL server).
 */

/** Environment id the dev server reports for its single environment (Go `consts.DevServerEnvID`). */
export const DEV_ENV_ID = "00000000-0000-4000-b000-000000000000";

/** Inngest REST v1 run status (`Running`, `Completed`, `Failed`, `Cancelled`) of an executor run status. */
export function restStatus(status: string): "Running" | "Completed" | "Failed" | "Cancelled" {
  return status === "completed" ? "Completed" : status === "failed" ? "Failed" : status === "cancelled" ? "Cancelled" : "Running";
}

interface RunRecord {
  id: string;
  functionId: string;
  status: string;
  event: unknown;
  output: unknown;
  error: unknown;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
}

/** The `id` of a stored event (ExecutorRun.event, ExecutorEvent.raw): the sender's own id or the ULID, a string; undefined when absent. */
function eventIdOf(event: Record<string, unknown>): string | undefined {
  return typeof event.id === "string" ? event.id : undefined;
}

/** A run in Inngest's REST v1 shape (`{run_id, function_id, status, output, …}`), plus `error` (Longhaul's addition; null unless failed or cancelled). */
export function restRun(run: RunRecord): Record<string, unknown> {
  return {
    run_id: run.id,
    run_started_at: (run.startedAt ?? run.createdAt).toISOString(),
    function_id: run.functionId,
    function_version: 1,
    environment_id: DEV_ENV_ID,
    event_id: eventIdOf(executorRunEventJson.decode(run.event, run.id)) ?? null,
    status: restStatus(run.status),
    ended_at: run.endedAt?.toISOString() ?? null,
    output: run.output ?? null,
    error: run.error ?? null,
  };
}

/**
 * Runs started by the event stored under `eventId` (the id `POST /e/{key}` returned). Runs are
 * created in the same transaction as their event, so they are matched on the event payload's id
 * and a creation time within a minute of the event's arrival (a sender's own `id` may recur after
 * the 24 h dedupe window). Returns undefined when the event does not exist.
 */
export async function runsForEvent(db: PrismaClient, eventId: string): Promise<RunRecord[] | undefined> {
  const event = await db.executorEvent.findUnique({ where: { id: eventId }, select: { raw: true, receivedAt: true } });
  if (!event) return undefined;
  const payloadId = eventIdOf(executorEventRawJson.decode(event.raw, eventId)) ?? eventId;
  const from = new Date(event.receivedAt.getTime() - 1000);
  const to = new Date(event.receivedAt.getTime() + 60_000);
  return db.$queryRawUnsafe<RunRecord[]>(
    `SELECT id, "functionId", status, event, output, error, "createdAt", "startedAt", "endedAt" FROM executor_run
      WHERE event->>'id' = $1 AND "createdAt" >= $2 AND "createdAt" < $3 ORDER BY "createdAt", id`,
    payloadId,
    from,
    to,
  );
}

const SDL = `
  scalar ULID
  scalar UUID
  scalar Time
  scalar Unknown

  enum FunctionRunStatus { QUEUED RUNNING COMPLETED FAILED CANCELLED }
  enum RunTraceSpanStatus { QUEUED RUNNING WAITING COMPLETED FAILED CANCELLED }

  type StepError { message: String! name: String stack: String cause: Unknown }
  type RunTraceSpanOutput { input: String data: String error: StepError }

  type RunTraceSpan {
    spanID: String!
    name: String!
    status: RunTraceSpanStatus!
    outputID: String
    stepID: String
    isRoot: Boolean!
    queuedAt: Time!
    startedAt: Time
    endedAt: Time
    childrenSpans: [RunTraceSpan!]!
  }

  type Function { id: String! slug: String! name: String! }

  type FunctionRunV2 {
    id: ULID!
    status: FunctionRunStatus!
    functionID: String!
    function: Function
    queuedAt: Time!
    startedAt: Time
    endedAt: Time
    output: String
    trace(preview: Boolean): RunTraceSpan
  }

  type EventV2 {
    id: ULID!
    name: String!
    idempotencyKey: String
    raw: String!
    occurredAt: Time!
    receivedAt: Time!
    version: String
    runs: [FunctionRunV2!]!
  }

  type Query {
    run(runID: String!): FunctionRunV2
    runTraceSpanOutputByID(outputID: String!): RunTraceSpanOutput
    eventV2(id: ULID!): EventV2
  }

  type Mutation {
    cancelRun(envID: UUID, runID: ULID!): FunctionRunV2
  }
`;

const passthrough = (name: string) =>
  new GraphQLScalarType({ name, serialize: (v) => v, parseValue: (v) => v, parseLiteral: (ast) => ("value" in ast ? ast.value : null) });

/** The GraphQL schema subset, with its custom scalars (ULID, UUID, Time as strings; Unknown as any JSON). */
function buildDevSchema(): GraphQLSchema {
  const schema = buildSchema(SDL);
  for (const name of ["ULID", "UUID", "Time", "Unknown"]) {
    const type = schema.getType(name) as GraphQLScalarType;
    const impl = passthrough(name);
    type.serialize = name === "Time" ? (v: unknown) => (v instanceof Date ? v.toISOString() : v) : impl.serialize;
    type.parseValue = impl.parseValue;
    type.parseLiteral = impl.parseLiteral;
  }
  return schema;
}

/** Output ids: `<runId>` for the run's own output, `<runId>:<hashedStepId>` for a memoized step. */
function outputIdOf(runId: string, hashedId?: string): string {
  return hashedId ? `${runId}:${hashedId}` : runId;
}

/** `{data, error}` of a step or run outcome: data as JSON text, error as `{message, name, stack, cause}`; both keys always present. */
function spanOutput(value: { data?: unknown; error?: unknown } | null, failed: boolean): { data: string | null; error: Record<string, unknown> | null } {
  if (failed || (value && "error" in value && value.error !== undefined)) {
    const error = value?.error ?? {};
    // A serialized error ({message, name, stack, cause}); anything else is shown as its JSON.
    const e = isJsonObject(error) ? error : {};
    return {
      data: null,
      error: {
        message: typeof e.message === "string" ? e.message : JSON.stringify(error),
        name: typeof e.name === "string" ? e.name : "Error",
        stack: typeof e.stack === "string" ? e.stack : null,
        cause: e.cause ?? null,
      },
    };
  }
  return { data: JSON.stringify(value?.data ?? null), error: null };
}

const GQL_STATUS: Record<string, string> = { queued: "QUEUED", running: "RUNNING", completed: "COMPLETED", failed: "FAILED", cancelled: "CANCELLED" };

/** Handle on the GraphQL endpoint: `execute(body)` answers a `POST /v0/gql` body as GraphQL over HTTP does (always HTTP 200). */
export interface DevGraphql {
  execute: (body: unknown) => Promise<{ data?: unknown; errors?: unknown[] }>;
}

/**
 * Builds the `/v0/gql` executor over `db`. `cancel(runId)` cancels a run (the `cancelRun`
 * mutation). Root fields: `run(runID)` (null for an unknown run), `runTraceSpanOutputByID`,
 * `eventV2(id)`. A run's trace is one root span (QUEUED, RUNNING, WAITING while only a sleep or a
 * wait is pending, then COMPLETED/FAILED/CANCELLED with `outputID` naming its output) whose
 * children are the memoized steps in stack order.
 */
export function createDevGraphql(db: PrismaClient, cancel: (runId: string) => Promise<boolean>): DevGraphql {
  const schema = buildDevSchema();

  const loadRun = (id: string) =>
    db.executorRun.findUnique({
      where: { id },
      select: { id: true, functionId: true, status: true, event: true, output: true, error: true, createdAt: true, startedAt: true, endedAt: true },
    });

  const runObject = (run: RunRecord) => ({
    id: run.id,
    status: GQL_STATUS[run.status] ?? "RUNNING",
    functionID: run.functionId,
    function: async () => {
      const fn = await db.executorFunction.findUnique({ where: { id: run.functionId }, select: { id: true, name: true } });
      return fn ? { id: fn.id, slug: fn.id, name: fn.name } : null;
    },
    queuedAt: run.createdAt,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    output: run.status === "completed" ? JSON.stringify(run.output ?? null) : null,
    trace: async () => {
      const steps = await db.executorStepResult.findMany({ where: { runId: run.id }, orderBy: { seq: "asc" } });
      let status = GQL_STATUS[run.status] ?? "RUNNING";
      if (run.status === "running") {
        const items = await db.executorQueueItem.findMany({ where: { runId: run.id }, select: { kind: true } });
        if (items.length > 0 && items.every((i) => i.kind === "sleepWake" || i.kind === "pauseTimeout")) status = "WAITING";
      }
      return {
        spanID: run.id,
        name: run.functionId,
        status,
        outputID: TERMINAL.has(run.status) ? outputIdOf(run.id) : null,
        stepID: null,
        isRoot: true,
        queuedAt: run.createdAt,
        startedAt: run.startedAt,
        endedAt: run.endedAt,
        childrenSpans: steps.map((s) => {
          const failed = !!s.value && typeof s.value === "object" && "error" in s.value;
          return {
            spanID: outputIdOf(run.id, s.hashedId),
            name: s.name,
            status: failed ? "FAILED" : "COMPLETED",
            outputID: outputIdOf(run.id, s.hashedId),
            stepID: s.hashedId,
            isRoot: false,
            queuedAt: s.createdAt,
            startedAt: s.createdAt,
            endedAt: s.createdAt,
            childrenSpans: [],
          };
        }),
      };
    },
  });

  const root = {
    run: async ({ runID }: { runID: string }) => {
      const run = await loadRun(runID);
      return run ? runObject(run) : null;
    },
    runTraceSpanOutputByID: async ({ outputID }: { outputID: string }) => {
      const [runId, hashedId] = outputID.split(":", 2) as [string, string | undefined];
      if (hashedId) {
        const step = await db.executorStepResult.findUnique({ where: { runId_hashedId: { runId, hashedId } } });
        if (!step) throw new Error(`no output with id ${outputID}`);
        const value = executorStepValueJson.decode(step.value, outputID);
        return spanOutput(isJsonObject(value) ? value : null, false);
      }
      const run = await loadRun(runId);
      if (!run || !TERMINAL.has(run.status)) throw new Error(`no output with id ${outputID}`);
      return run.status === "completed" ? spanOutput({ data: run.output }, false) : spanOutput({ error: run.error }, true);
    },
    eventV2: async ({ id }: { id: string }) => {
      const event = await db.executorEvent.findUnique({ where: { id } });
      if (!event) return null;
      const raw = executorEventRawJson.decode(event.raw, event.id);
      return {
        id: event.id,
        name: event.name,
        // The sender's own id when it gave one, else the event's id (Go sets ID to the internal id when empty): always a string.
        idempotencyKey: event.userId ?? eventIdOf(raw) ?? event.id,
        raw: JSON.stringify(event.raw),
        occurredAt: new Date(Number(event.ts)),
        receivedAt: event.receivedAt,
        version: typeof raw.v === "string" ? raw.v : null,
        runs: async () => ((await runsForEvent(db, event.id)) ?? []).map(runObject),
      };
    },
    cancelRun: async ({ runID }: { runID: string }) => {
      const run = await loadRun(runID);
      if (!run) throw new Error(`run ${runID} not found`);
      await cancel(runID);
      const after = await loadRun(runID);
      return after ? runObject(after) : null;
    },
  };

  return {
    execute: async (body) => {
      const b = (body ?? {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
      if (typeof b.query !== "string" || !b.query.trim()) return { errors: [{ message: 'body: "query" (string) is required' }] };
      const result = await graphql({
        schema,
        source: b.query,
        rootValue: root,
        variableValues: b.variables && typeof b.variables === "object" ? (b.variables as Record<string, unknown>) : undefined,
        operationName: typeof b.operationName === "string" ? b.operationName : undefined,
      });
      return result.errors
        ? { ...(result.data !== undefined ? { data: result.data } : {}), errors: result.errors.map((e) => e.toJSON()) }
        : { data: result.data };
    },
  };
}

import { z } from "zod";
import type { Prisma } from "../db/client.ts";
import { anyJson, jsonColumnCodec, jsonObject } from "../db/json-codec.ts";
import type { ExecutorEventPayload } from "./engine/context.ts";

// One codec per JSON column of the executor's tables (Longhaul's own are in
// server/db/json-columns.ts). They hold Inngest's wire shapes — events, function configs, step
// results — which the executor passes on as the SDK sent them, so they are read as any JSON; the
// codecs give each write Prisma's JSON input without a cast, and name the column on a bad value.
// One exception, on the hot path: memoized step results (engine/runs.ts saveStep) arrive already
// typed as JSON from the SDK's response and are written as they are, without the codec's copy.

/** A function config entry as the SDK registers it (docs/INNGEST-PROTOCOL.md §2.2, `InngestFunction.getConfig`). */
export interface FunctionConfig {
  id: string;
  name?: string;
  triggers?: { event?: string; expression?: string; cron?: string }[];
  steps?: Record<string, { id?: string; name?: string; runtime?: { type?: string; url?: string }; retries?: { attempts?: number } }>;
  idempotency?: string;
  cancel?: { event: string; if?: string; timeout?: string }[];
  concurrency?: number | { limit: number; key?: string; scope?: string } | { limit: number; key?: string; scope?: string }[];
  [key: string]: unknown;
}

/** One `concurrency` entry of a function config. */
const concurrencyEntry = z.looseObject({ limit: z.number(), key: z.string().optional(), scope: z.string().optional() });

/**
 * A function config as FunctionConfig types it: the fields the engine reads checked for
 * their types (an id; triggers, steps, idempotency, cancelOn, concurrency when present), every other
 * key kept as the SDK sent it. Registration (registry.ts validateFunctionConfig) refuses what the
 * executor does not implement before a config is written; this only guards the types it reads back.
 */
const functionConfigSchema: z.ZodType<FunctionConfig> = z.looseObject({
  id: z.string(),
  name: z.string().optional(),
  triggers: z.array(z.looseObject({ event: z.string().optional(), expression: z.string().optional(), cron: z.string().optional() })).optional(),
  steps: z
    .record(
      z.string(),
      z.looseObject({
        id: z.string().optional(),
        name: z.string().optional(),
        runtime: z.looseObject({ type: z.string().optional(), url: z.string().optional() }).optional(),
        retries: z.looseObject({ attempts: z.number().optional() }).optional(),
      }),
    )
    .optional(),
  idempotency: z.string().optional(),
  cancel: z.array(z.looseObject({ event: z.string(), if: z.string().optional(), timeout: z.string().optional() })).optional(),
  concurrency: z.union([z.number(), concurrencyEntry, z.array(concurrencyEntry)]).optional(),
});

/** ExecutorFunction.config: the function's configuration as the SDK registered it (FunctionConfig). */
export const executorFunctionConfigJson = jsonColumnCodec<FunctionConfig>("ExecutorFunction.config", functionConfigSchema);

/** ExecutorEvent.data: the event's `data` object. */
export const executorEventDataJson = jsonColumnCodec<unknown, Prisma.JsonValue>("ExecutorEvent.data", anyJson);

/** ExecutorEvent.raw: the whole event as it was sent ({name, data, id, ts, user?, v?}). */
export const executorEventRawJson = jsonColumnCodec<ExecutorEventPayload, Record<string, unknown>>("ExecutorEvent.raw", jsonObject);

/** ExecutorRun.event: the event that started the run. */
export const executorRunEventJson = jsonColumnCodec<ExecutorEventPayload, Record<string, unknown>>("ExecutorRun.event", jsonObject);

/** ExecutorRun.events: the events of the run's batch (one, the triggering event, for an unbatched function). */
export const executorRunEventsJson = jsonColumnCodec<ExecutorEventPayload[], Prisma.JsonValue>("ExecutorRun.events", anyJson);

/** ExecutorRun.error: the serialized error the run failed with. */
export const executorRunErrorJson = jsonColumnCodec<unknown, Prisma.JsonValue>("ExecutorRun.error", anyJson);

/** ExecutorStepResult.value: a memoized step's result as the SDK receives it back (`{data}` or `{error}`). */
export const executorStepValueJson = jsonColumnCodec<unknown, Prisma.JsonValue>("ExecutorStepResult.value", anyJson);

/** ExecutorQueueItem.payload: what the queue item's handler needs (kind-specific). */
export const executorQueuePayloadJson = jsonColumnCodec<Record<string, unknown>>("ExecutorQueueItem.payload", jsonObject);

/** ExecutorOp.ops: the ops of a 206 response, as `{id, op, name}`. */
export const executorOpOpsJson = jsonColumnCodec<{ id: string; op: string; name?: string }[], Prisma.JsonValue>("ExecutorOp.ops", anyJson);

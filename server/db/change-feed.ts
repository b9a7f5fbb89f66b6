import { EventEmitter } from "node:events";
import pg from "pg";
import { z } from "zod";
import { env } from "../env.ts";

/** One change notification: the table written and the task it belongs to. */
export interface ChangeEvent {
  t: string;
  taskId: string | null;
}

const changeEventSchema: z.ZodType<ChangeEvent> = z.object({ t: z.string(), taskId: z.string().nullable() });

/**
 * The change event a `longhaul_changes` notification's payload carries (`{"t": table, "taskId": id
 * or null}`, as server/db/sql/live-notify.sql writes it), or null for a payload that is not JSON or
 * not of that shape (other keys are dropped).
 */
export function parseChangeEvent(payload: string): ChangeEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = changeEventSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** The tables whose writes notify (the triggers of server/db/sql/live-notify.sql), as a change event's `t`. */
export const LIVE_TABLES = ["task", "run", "step", "fact", "artifact", "outbox_message", "checkpoint", "alert", "escalation"] as const;

/**
 * The `tables` filter of a live stream (`/api/live?tables=escalation,task`): `{tables}`, the tables
 * named, or null for every table when the parameter is absent; `{error}` naming the parameter, the
 * first unknown name (at most 50 characters of it) or an empty one, and the tables there are.
 */
export function parseLiveTables(param: string | null): { tables: ReadonlySet<string> | null } | { error: string } {
  if (param === null) return { tables: null };
  const names = param.split(",");
  const unknown = names.find((t) => !LIVE_TABLES.some((known) => known === t));
  if (unknown !== undefined)
    return {
      error: `tables: ${unknown === "" ? "an empty name" : `unknown table ${JSON.stringify(unknown.slice(0, 50))}`}; a comma-separated list of ${LIVE_TABLES.join(", ")}`,
    };
  return { tables: new Set(names) };
}

/**
 * Whether a live stream filtered to `taskId` and `tables` (null: any) passes a change event on:
 * `reconnect` always (the subscriber refetches what it may have missed), any other event only when
 * it is of that task and one of those tables.
 */
export function liveEventPasses(e: ChangeEvent, { taskId, tables }: { taskId: string | null; tables: ReadonlySet<string> | null }): boolean {
  if (e.t === "reconnect") return true;
  return (taskId === null || e.taskId === taskId) && (tables === null || tables.has(e.t));
}

const CHANNEL = "longhaul_changes";

/**
 * The process-wide change feed: one PostgreSQL connection LISTENing on `longhaul_changes` (filled by
 * the triggers of migration `live_notify`), fanned out to subscribers. Reconnects with backoff when
 * the connection drops; subscribers are told `{t: "reconnect"}` so they refetch what they may have
 * missed.
 */
class ChangeFeed {
  private readonly emitter = new EventEmitter();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retryMs = 500;

  constructor(private readonly url: string) {
    this.emitter.setMaxListeners(0);
  }

  subscribe(listener: (e: ChangeEvent) => void): () => void {
    this.emitter.on("change", listener);
    void this.ensureConnected();
    return () => this.emitter.off("change", listener);
  }

  private ensureConnected(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on("notification", (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const event = parseChangeEvent(msg.payload);
      // A malformed payload (not written by our triggers) is ignored: subscribers only see change events.
      if (!event) return;
      try {
        this.emitter.emit("change", event);
      } catch {
        // a subscriber's own failure is not the feed's
      }
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners();
      void client.end().catch(() => {});
      setTimeout(() => {
        if (this.emitter.listenerCount("change") > 0) void this.ensureConnected();
      }, this.retryMs).unref();
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
    };
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.client = client;
      this.retryMs = 500;
      this.emitter.emit("change", { t: "reconnect", taskId: null } satisfies ChangeEvent);
    } catch {
      this.client = client;
      lost();
    }
  }
}

const globalForFeed = globalThis as unknown as { longhaulChangeFeed?: ChangeFeed };

/** The change feed of this process (DATABASE_URL). */
export function changeFeed(): ChangeFeed {
  const url = env().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  globalForFeed.longhaulChangeFeed ??= new ChangeFeed(url);
  return globalForFeed.longhaulChangeFeed;
}

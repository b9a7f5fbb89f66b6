import { NOW } from "./context.ts";

/**
 * The executor's hand-written SQL (the statements on the hot paths and the ones Prisma's query
 * builder cannot express: `FOR UPDATE SKIP LOCKED`, data-modifying CTEs). Parameters are listed
 * next to each statement.
 */

/**
 * Discovery answered with one `StepRun`, in one statement (see apply-response.ts `stepRunFast`).
 * $1 item id, $2 lease owner, $3 run id, $4 hashed step id, $5 value (jsonb text), $6 step name,
 * $7 request version or null, $8 follow-up discovery job id, $9 ops log (jsonb text),
 * $10 max steps per run, $11 request duration ms.
 */
export const STEP_RUN_FAST = `WITH run AS (
         SELECT id, "nextSeq" FROM executor_run
          WHERE id = $3 AND status IN ('queued','running') AND cardinality(pending) = 0 AND "nextSeq" < $10
            AND EXISTS (SELECT 1 FROM executor_queue_item WHERE id = $1 AND owner = $2)
          FOR UPDATE
       ), item AS (
         DELETE FROM executor_queue_item WHERE id = $1 AND owner = $2 AND EXISTS (SELECT 1 FROM run) RETURNING id
       ), ins AS (
         INSERT INTO executor_step_result ("runId", "hashedId", seq, value, name)
         SELECT $3, $4, run."nextSeq", $5::jsonb, $6 FROM run, item
          WHERE NOT EXISTS (SELECT 1 FROM executor_step_result WHERE "runId" = $3 AND "hashedId" = $4)
         ON CONFLICT DO NOTHING RETURNING seq
       ), upd AS (
         UPDATE executor_run r SET "nextSeq" = r."nextSeq" + (SELECT count(*) FROM ins)::int,
                "requestVersion" = COALESCE($7::int, r."requestVersion"), "forceStepPlan" = false
           FROM run, item WHERE r.id = run.id RETURNING r.id
       ), enq AS (
         INSERT INTO executor_queue_item ("jobId", "runId", kind, "stepId", attempt, "availableAt", payload)
         SELECT $8, $3, 'discover', 'step', 0, ${NOW}, '{}'::jsonb FROM upd
         ON CONFLICT DO NOTHING RETURNING id
       ), oplog AS (
         INSERT INTO executor_op ("runId", kind, "stepId", status, ops, "durationMs")
         SELECT $3, 'discover', 'step', 206, $9::jsonb, $11 FROM upd RETURNING id
       )
       SELECT (SELECT count(*) FROM upd) AS run, (SELECT count(*) FROM ins) AS inserted, (SELECT count(*) FROM enq) AS enq, (SELECT count(*) FROM oplog) AS oplog`;

/**
 * Checkpoints of several runs, in one statement and one commit (group commit, see
 * checkpoint-batch.ts): for each entry the same writes per entry — renew the lease
 * of its queue item (only if still leased by that owner), lock its run (only if live and the step
 * limit holds), insert its results that do not exist yet with consecutive `seq` from the run's
 * `nextSeq`, advance `nextSeq` — and one result row per entry: `k`, `item` (lease renewed), `run`
 * (run locked and live), `inserted`. Entries never share a run (the batcher keeps them apart).
 * $1 entries `[{k, qi, run, owner, n}]` (jsonb text, n = number of rows), $2 rows
 * `[{k, ord, hashedId, value, name}]` (jsonb text), $3 lease ms, $4 max steps per run.
 */
export const CHECKPOINT_BATCH = `WITH entries AS (
         SELECT e.k, e.qi, e.run, e.owner, e.n FROM jsonb_to_recordset($1::jsonb) AS e(k int, qi bigint, run text, owner text, n int)
       ), item AS (
         UPDATE executor_queue_item q SET "leaseUntil" = ${NOW} + ($3 * interval '1 millisecond')
           FROM entries e
          WHERE q.id = e.qi AND q."runId" = e.run AND q.owner = e.owner AND q."leaseUntil" > ${NOW}
          RETURNING e.k
       ), run AS (
         SELECT r.id, r."nextSeq", e.k FROM executor_run r JOIN entries e ON r.id = e.run
          WHERE r.status IN ('queued','running') AND r."nextSeq" + e.n <= $4 AND e.k IN (SELECT k FROM item)
          ORDER BY r.id
          FOR UPDATE OF r
       ), input AS (
         SELECT x.k, x.ord, x."hashedId", x.value, x.name FROM jsonb_to_recordset($2::jsonb) AS x(k int, ord int, "hashedId" text, value jsonb, name text)
       ), fresh AS (
         SELECT i.k, i.ord, i."hashedId", i.value, i.name, run.id AS "runId", run."nextSeq" FROM input i JOIN run ON run.k = i.k
          WHERE NOT EXISTS (SELECT 1 FROM executor_step_result s WHERE s."runId" = run.id AND s."hashedId" = i."hashedId")
       ), ins AS (
         INSERT INTO executor_step_result ("runId", "hashedId", seq, value, name)
         SELECT f."runId", f."hashedId", f."nextSeq" + (row_number() OVER (PARTITION BY f.k ORDER BY f.ord))::int - 1, f.value, f.name FROM fresh f
         ON CONFLICT DO NOTHING RETURNING "runId"
       ), counts AS (
         SELECT "runId", count(*)::int AS n FROM ins GROUP BY "runId"
       ), upd AS (
         UPDATE executor_run r SET "nextSeq" = r."nextSeq" + c.n FROM counts c WHERE r.id = c."runId"
       )
       SELECT e.k, EXISTS (SELECT 1 FROM item WHERE item.k = e.k) AS item, EXISTS (SELECT 1 FROM run WHERE run.k = e.k) AS run,
              COALESCE((SELECT c.n FROM counts c WHERE c."runId" = e.run), 0) AS inserted
         FROM entries e ORDER BY e.k`;

/** Renews a checkpointing item's lease (slow path). $1 item id, $2 run id, $3 lease ms, $4 owner. */
export const RENEW_CHECKPOINT_LEASE = `UPDATE executor_queue_item SET "leaseUntil" = ${NOW} + ($3 * interval '1 millisecond')
          WHERE id = $1 AND "runId" = $2 AND owner = $4 AND "leaseUntil" > ${NOW} RETURNING id`;

/** Leases due items. $1 lease ms, $2 owner, $3 limit. */
export const LEASE = `UPDATE executor_queue_item q SET "leaseUntil" = ${NOW} + ($1 * interval '1 millisecond'), owner = $2
         FROM (SELECT id FROM executor_queue_item
                WHERE "availableAt" <= ${NOW} AND ("leaseUntil" IS NULL OR "leaseUntil" < ${NOW})
                ORDER BY "availableAt", id LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE q.id = due.id
        RETURNING q.id, q."jobId", q."runId", q.kind, q."stepId", q.attempt, q.payload, q.owner`;

/** Heartbeat of a leased item. $1 lease ms, $2 item id, $3 owner. */
export const HEARTBEAT = `UPDATE executor_queue_item SET "leaseUntil" = ${NOW} + ($1 * interval '1 millisecond') WHERE id = $2 AND owner = $3`;

/** Run, function and memoized steps (in stack order) in one round trip. $1 run id. */
export const LOAD_RUN_FOR_CALL = `SELECT r.id, r.status, r.event, r.events, r."requestVersion", r."forceStepPlan", r."maxAttempts", r."functionId",
              f.id AS "fnId", f.url AS "fnUrl", f.config AS "fnConfig",
              (SELECT json_agg(json_build_object('h', s."hashedId", 'v', s.value) ORDER BY s.seq)
                 FROM executor_step_result s WHERE s."runId" = r.id) AS steps
         FROM executor_run r LEFT JOIN executor_function f ON f.id = r."functionId" WHERE r.id = $1`;

/** Locks a run. $1 run id. */
export const LOCK_RUN = `SELECT id, "functionId", status, event, events, "requestVersion", "forceStepPlan", pending, "maxAttempts", "nextSeq"
         FROM executor_run WHERE id = $1 FOR UPDATE`;

/** Pauses an event may match (live runs only, cancel before wait). $1 event name. */
export const PAUSES_FOR_EVENT = `SELECT p.id, p."runId", p.kind, p."hashedId", p.expression, r.event AS "runEvent"
         FROM executor_pause p JOIN executor_run r ON r.id = p."runId"
        WHERE p.event = $1 AND p."expiresAt" > ${NOW} AND r.status IN ('queued','running')
        ORDER BY p.kind ASC, p."createdAt" ASC`;

/**
 * Run completion in one statement (see apply-response.ts `runCompleteFast`): only while this
 * process holds the request item's lease, the run is live, and nothing listens for
 * `inngest/function.finished` (no function triggered by it, no pause on it — otherwise the general
 * path processes that event). Marks the run completed with its output, deletes its queue items and
 * pauses, stores the `inngest/function.finished` event and logs the op.
 * $1 item id, $2 lease owner, $3 run id, $4 output (jsonb text), $5 request version or null,
 * $6 finished event id, $7 event ts (ms), $8 op kind, $9 op step id, $10 HTTP status,
 * $11 ops log (jsonb text or null), $12 request duration ms.
 */
export const RUN_COMPLETE_FAST = `WITH run AS (
         SELECT id, "functionId", event FROM executor_run
          WHERE id = $3 AND status IN ('queued','running')
            AND EXISTS (SELECT 1 FROM executor_queue_item WHERE id = $1 AND owner = $2)
            AND NOT EXISTS (SELECT 1 FROM executor_pause WHERE event = 'inngest/function.finished')
            AND NOT EXISTS (SELECT 1 FROM executor_function WHERE 'inngest/function.finished' = ANY(events))
          FOR UPDATE
       ), upd AS (
         UPDATE executor_run r SET status = 'completed', "endedAt" = ${NOW}, pending = '{}', output = $4::jsonb,
                "requestVersion" = COALESCE($5::int, r."requestVersion"), "forceStepPlan" = false
           FROM run WHERE r.id = run.id RETURNING r.id
       ), delq AS (
         DELETE FROM executor_queue_item WHERE "runId" = $3 AND EXISTS (SELECT 1 FROM upd) RETURNING id
       ), delp AS (
         DELETE FROM executor_pause WHERE "runId" = $3 AND EXISTS (SELECT 1 FROM upd) RETURNING id
       ), fin AS (
         SELECT jsonb_build_object('function_id', run."functionId", 'run_id', run.id, 'result', $4::jsonb, 'event', run.event) AS data FROM run, upd
       ), ev AS (
         INSERT INTO executor_event (id, name, data, raw, ts, "receivedAt")
         SELECT $6, 'inngest/function.finished', fin.data,
                jsonb_build_object('name', 'inngest/function.finished', 'data', fin.data, 'id', $6::text, 'ts', $7::bigint, 'user', '{}'::jsonb), $7::bigint, ${NOW}
           FROM fin RETURNING id
       ), oplog AS (
         INSERT INTO executor_op ("runId", kind, "stepId", status, ops, "durationMs")
         SELECT $3, $8, $9, $10, $11::jsonb, $12 FROM upd RETURNING id
       )
       SELECT (SELECT count(*) FROM upd) AS run, (SELECT count(*) FROM delq) AS items, (SELECT count(*) FROM ev) AS events, (SELECT count(*) FROM oplog) AS ops`;

/** Marks a queued run running at its first request. $1 run id. */
export const MARK_RUNNING = `UPDATE executor_run SET status = 'running', "startedAt" = ${NOW} WHERE id = $1 AND status = 'queued'`;

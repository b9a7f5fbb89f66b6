import { requireRole } from "@/server/auth/route-guard.ts";
import { changeFeed, liveEventPasses, parseLiveTables, type ChangeEvent } from "@/server/db/change-feed.ts";

export const dynamic = "force-dynamic";

/**
 * GET /api/live[?taskId=…][&tables=…] — server-sent events: `data: {"t": table, "taskId": …}` whenever run
 * state changes (PostgreSQL LISTEN/NOTIFY), filtered to one task when `taskId` is given and to the
 * tables named in `tables` (comma-separated, of LIVE_TABLES; 400 naming it otherwise); coalesced to
 * at most one event per 200 ms per table; a comment every 15 s keeps proxies from closing the stream,
 * after checking the caller again (a session that ended ends the stream). Any role; 401 signed out.
 */
export async function GET(request: Request): Promise<Response> {
  const who = await requireRole(request, [], "live updates");
  if (who instanceof Response) return who;
  const params = new URL(request.url).searchParams;
  const taskId = params.get("taskId");
  const filter = parseLiveTables(params.get("tables"));
  if ("error" in filter) return Response.json({ error: filter.error }, { status: 400 });
  const { tables } = filter;
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const pending = new Map<string, ChangeEvent>();
      let timer: ReturnType<typeof setTimeout> | null = null;
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const flush = () => {
        timer = null;
        for (const e of pending.values()) send(`data: ${JSON.stringify(e)}\n\n`);
        pending.clear();
      };
      const unsubscribe = changeFeed().subscribe((e) => {
        if (!liveEventPasses(e, { taskId: taskId || null, tables })) return;
        pending.set(`${e.t}:${e.taskId ?? ""}`, e);
        timer ??= setTimeout(flush, 200);
      });
      // Every 15 s: a comment keeps proxies from closing the stream, and the caller is checked again —
      // a session that ended (signed out, deactivated, password reset by an admin) ends the stream.
      const heartbeat = setInterval(() => {
        void requireRole(request, [], "live updates").then(
          (still) => {
            if (still instanceof Response) {
              cleanup();
              try {
                controller.close();
              } catch {
                // already closed
              }
            } else send(": keep-alive\n\n");
          },
          () => send(": keep-alive\n\n"),
        ); // the check itself failed (database restarting): keep the stream, check at the next beat
      }, 15_000);
      send(`retry: 2000\n: connected\n\n`);
      cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        if (timer) clearTimeout(timer);
      };
      request.signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" },
  });
}

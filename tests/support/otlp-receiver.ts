import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { freePort } from "./ports.ts";

/** OTLP/JSON shapes as the OTLP/HTTP exporter sends them (opentelemetry-proto, JSON encoding). */
export interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
export interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: { name: string; timeUnixNano: string; attributes: OtlpKeyValue[] }[];
  links?: { traceId: string; spanId: string; attributes: OtlpKeyValue[] }[];
  status?: { code?: number; message?: string };
}
export interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpKeyValue[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

export const plain = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue));
export const attrsOf = (kvs: OtlpKeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, plain(kv.value)]));

/**
 * What the receiver does with request number `n` (0-based) once it has read the whole body:
 * - `accept`: stores it (it counts as accepted) and answers 200 `{}`;
 * - `fail`: answers `status` (default 500) without storing — a collector that refused it;
 * - `accept_then_hang`: stores it, then never answers (the client gives up: a collector that accepted
 *   a request and timed out on the answer);
 * - `hold`: stores it and answers 200 only when {@link OtlpReceiver.release} is called (a slow collector).
 */
export type ReceiverAction = { kind: "accept" } | { kind: "fail"; status?: number } | { kind: "accept_then_hang" } | { kind: "hold" };

export interface OtlpReceiver {
  url: string;
  /** Every request seen, in arrival order, whatever was done with it. */
  requests: { n: number; action: ReceiverAction["kind"]; path: string; headers: IncomingHttpHeaders; raw: string; body: OtlpExport; at: number }[];
  /** Spans of the requests the receiver stored (accepted, accept_then_hang, hold), duplicates included. */
  accepted: () => OtlpSpan[];
  /** Called with each request as it arrives, before it is answered (e.g. to read the database at that moment). */
  onRequest?: (spans: OtlpSpan[]) => Promise<void> | void;
  /** Answers every held request and accepts from now on. */
  release: () => void;
  /** Changes the policy for requests from now on. */
  setPolicy: (policy: (n: number) => ReceiverAction) => void;
  close: () => Promise<void>;
}

/** A real OTLP/HTTP receiver (`POST /v1/traces`, JSON) on a free loopback port, acting per `policy`. */
export async function startOtlpReceiver(policy: (n: number) => ReceiverAction = () => ({ kind: "accept" })): Promise<OtlpReceiver> {
  let current = policy;
  let count = 0;
  const held: ServerResponse[] = [];
  const hanging: ServerResponse[] = [];
  const receiver: OtlpReceiver = {
    url: "",
    requests: [],
    accepted: () =>
      receiver.requests.filter((r) => r.action !== "fail").flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))),
    release: () => {
      current = () => ({ kind: "accept" });
      for (const res of held.splice(0)) answer(res, 200);
    },
    setPolicy: (p) => {
      current = p;
    },
    close: async () => {
      for (const res of [...held.splice(0), ...hanging.splice(0)]) res.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const answer = (res: ServerResponse, status: number) => {
    if (res.destroyed) return;
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(status < 300 ? "{}" : JSON.stringify({ code: 13, message: "receiver refused the request" }));
  };
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      void (async () => {
        const n = count++;
        const action = current(n);
        const body = JSON.parse(raw) as OtlpExport;
        receiver.requests.push({ n, action: action.kind, path: req.url ?? "", headers: req.headers, raw, body, at: Date.now() });
        await receiver.onRequest?.(body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
        if (action.kind === "accept") answer(res, 200);
        else if (action.kind === "fail") answer(res, action.status ?? 500);
        else if (action.kind === "hold") held.push(res);
        else hanging.push(res);
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  receiver.url = `http://127.0.0.1:${port}`;
  return receiver;
}

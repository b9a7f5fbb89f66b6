import http from "node:http";
import https from "node:https";

/**
 * POSTs to the app over node:http with keep-alive agents instead of undici `fetch`: measured on this
 * machine a keep-alive `http.request` halves the loopback round trip's CPU (0.27 against
 * 0.53 ms). Same contract as the fetch it replaces: resolves with any HTTP status; rejects when no
 * response arrived (connection refused or reset, abort via `signal`).
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** The response of {@link postJson}: status, headers (lower-case names), body text. */
export interface PostResult {
  status: number;
  headers: Headers;
  text: string;
}

/** POSTs `body` to `url` with `headers`; see the module note. @throws the socket's Error (code ECONNREFUSED, ECONNRESET, …) or the abort reason. */
export function postJson(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<PostResult> {
  const secure = url.protocol === "https:";
  const request = secure ? https.request : http.request;
  return new Promise<PostResult>((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", agent: agents[secure ? "https:" : "http:"], headers: { ...headers, "content-length": String(Buffer.byteLength(body)) }, signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("aborted", () => reject(new Error("response aborted")));
        res.on("end", () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString("utf8") });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

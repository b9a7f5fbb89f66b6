// Preloaded into the web app's process (`npm start` runs `next start` with NODE_OPTIONS=--require …):
// request-size limits for the HTTP server Next.js creates, answered at once and in HTTP's words.
//
// Why: Node waits for the end of a request's header block before its handler sees anything. A
// client that never finishes the block gets no answer until the header timeout — and curl before 8.2
// does exactly that with a cookie jar once a request passes 8,190 bytes (it drops the cookies and
// leaves `Cookie: ` without the blank line), so a signed-in 8,000-character URL "never answered".
// With a header block limited to WEB_MAX_HEADER_BYTES (default 8,000 bytes, request line included:
// Node's own limit before version 14, as Apache's LimitRequestLine and nginx's 8k buffers), the
// parser stops at that many bytes whether or not the block ends, and the answer is immediate:
// 414 URI Too Long when the request line alone passes the limit, 431 Request Header Fields Too Large
// otherwise (RFC 9110 §15.5.15, RFC 6585 §5). Other malformed requests keep Node's answers (400,
// 408 for a header timeout, 413 for an oversize chunk extension).
"use strict";
const http = require("node:http");

const raw = Number(process.env.WEB_MAX_HEADER_BYTES ?? "");
const MAX_HEADER_BYTES = Number.isInteger(raw) && raw >= 1024 ? raw : 8000;

/** The status line and reason Node would send for `code`, with our 414/431 split. */
function statusFor(err) {
  if (err.code === "HPE_HEADER_OVERFLOW") {
    const received = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.toString("latin1") : "";
    const lineEnd = received.indexOf("\r\n");
    const requestLine = lineEnd === -1 ? received.length : lineEnd;
    // The request line is what overflowed when it ends past the limit (or never ends within it).
    return requestLine >= MAX_HEADER_BYTES - 2 || lineEnd === -1 ? [414, "URI Too Long"] : [431, "Request Header Fields Too Large"];
  }
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") return [408, "Request Timeout"];
  if (err.code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") return [413, "Payload Too Large"];
  return [400, "Bad Request"];
}

function onClientError(err, socket) {
  // As Node's default: answer only when nothing has been written on this socket yet; then close.
  if (socket.writable && socket.bytesWritten === 0) {
    const [status, reason] = statusFor(err);
    const words =
      status === 414
        ? `This address is too long: a request's line and headers may take at most ${MAX_HEADER_BYTES} bytes.`
        : status === 431
          ? `This request's headers are too large: a request's line and headers may take at most ${MAX_HEADER_BYTES} bytes.`
          : reason;
    // A small page a browser shows with a way back; readable as text by a script.
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${reason}</title></head><body><h1>${status} ${reason}</h1><p>${words}</p><p><a href="/tasks">All tasks</a></p></body></html>\n`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  } else {
    socket.destroy(err);
  }
}

const createServer = http.createServer;
http.createServer = function createLimitedServer(options, listener) {
  const server =
    typeof options === "function" || options === undefined
      ? createServer.call(http, { maxHeaderSize: MAX_HEADER_BYTES }, options)
      : createServer.call(http, { maxHeaderSize: MAX_HEADER_BYTES, ...options }, listener);
  server.on("clientError", onClientError);
  return server;
};

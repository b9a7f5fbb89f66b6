import { connect } from "node:net";
import { expect, test } from "@playwright/test";

// Long URLs, signed in (the session cookie sent with every request), over real HTTP against the built
// app. Up to the web app's request limit (WEB_MAX_HEADER_BYTES, 8,000 bytes of request line and
// headers) a long URL gets its page or its 404 at once; past it the answer is 414 URI Too Long, also at
// once — including for a client that never ends its header block, as curl before 8.2 does with a
// cookie jar on a request over 8,190 bytes (scripts/lib/http-limits.cjs).

test("a 7,000-character task id and query string get their 404 and their page", async ({ request }) => {
  const id = "a".repeat(7_000);
  expect((await request.get(`/tasks/${id}`, { maxRedirects: 0 })).status()).toBe(404);
  expect((await request.get(`/tasks?q=${id}`, { maxRedirects: 0 })).status()).toBe(200);
  const api = await request.get(`/api/trpc/task.get?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`);
  expect(api.status()).toBe(400);
});

for (const n of [8_000, 9_000, 20_000]) {
  test(`a ${n}-character URL is refused at once with 414, page and API alike`, async ({ request }) => {
    const id = "a".repeat(n);
    const page = await request.get(`/tasks/${id}`, { maxRedirects: 0 });
    expect(page.status()).toBe(414);
    expect(await page.text()).toContain("may take at most 8000 bytes");
    expect((await request.get(`/tasks?q=${id}`, { maxRedirects: 0 })).status()).toBe(414);
    expect((await request.get(`/api/trpc/task.get?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`)).status()).toBe(414);
  });
}

test("headers past the limit are refused at once with 431", async ({ request }) => {
  const res = await request.get("/tasks", { headers: { "x-padding": "b".repeat(9_000) }, maxRedirects: 0 });
  expect(res.status()).toBe(431);
});

test("a header block that never ends, past the limit, is answered at once (curl before 8.2)", async ({ baseURL }) => {
  const { hostname, port } = new URL(baseURL!);
  // What curl 7.88 sends for a signed-in 8,200-character URL: the line, its headers, and a `Cookie: `
  // with no value and no blank line after it. The server must not wait for the rest.
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET /tasks/${"a".repeat(8_200)} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nCookie: `);
    });
    let received = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
  expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 414 URI Too Long");
});

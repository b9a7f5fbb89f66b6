import { expect, test } from "@playwright/test";

// Long URLs, signed in (the session cookie sent with every request), over real HTTP against the built
// app: a page URL of 8,000 or 9,000 characters answers at once (404 for an id that cannot exist, the
// list for a long query string), and one past Node's 16 KiB header limit is refused at once with 431.
// (curl before 8.2 drops the cookies of a request over 8,190 bytes and then never ends its header
// block — "Cookie: " and no blank line — so the server waits for the rest of the request: that was
// the "no answer" seen with curl, not the app.)

for (const n of [8_000, 9_000]) {
  test(`a ${n}-character task id and query string answer at once`, async ({ request }) => {
    const id = "a".repeat(n);
    const page = await request.get(`/tasks/${id}`, { maxRedirects: 0 });
    expect(page.status()).toBe(404);
    const list = await request.get(`/tasks?q=${id}`, { maxRedirects: 0 });
    expect(list.status()).toBe(200);
    const api = await request.get(`/api/trpc/task.get?input=${encodeURIComponent(JSON.stringify({ json: { taskId: id } }))}`);
    expect(api.status()).toBe(400);
  });
}

test("a URL past the header limit is refused at once with 431", async ({ request }) => {
  const res = await request.get(`/tasks/${"a".repeat(20_000)}`, { maxRedirects: 0 });
  expect(res.status()).toBe(431);
});

import { expect, test, type Locator } from "@playwright/test";
import { launchLoopUntilEscalated } from "./helpers.ts";

// Text from people and agents is shown as written: a bidi override (U+202E) cannot reverse it, ESC
// and BEL do not render as boxes — each control shows as a marked escape inside an isolated <bdi>.

/** Left edges (px) of the first `a` and the first `b` after it inside `locator`'s text, as laid out. */
async function leftOf(locator: Locator, word: string): Promise<{ first: number; last: number }> {
  return locator.evaluate((root, w) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent!.indexOf(w);
      if (at < 0) continue;
      const box = (i: number) => {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        return range.getBoundingClientRect().left;
      };
      return { first: box(at), last: box(at + w.length - 1) };
    }
    throw new Error(`"${w}" not found`);
  }, word);
}

test("a token name with an unpaired RLO shows the override as an escape, isolated, on /account", async ({ page, request }) => {
  const name = `\u202Eevil-${Date.now()}`;
  const res = await request.post("/api/trpc/account.createToken", { data: { json: { name, expiresInDays: 1 } } });
  expect(res.ok(), await res.text()).toBe(true);
  await page.goto("/account");
  const cell = page.locator("bdi", { hasText: name.slice(1) });
  await expect(cell).toHaveCount(1);
  expect(await cell.textContent()).toBe(`\\u202e${name.slice(1)}`);
});

test("a dead-end reason with U+202E, ESC and BEL reads in the order it was written on the task page", async ({ page, request }) => {
  const taskUrl = await launchLoopUntilEscalated(page);
  const href = await page.getByTestId("escalation-banner").getByRole("link", { name: "Decide" }).getAttribute("href");
  const escalationId = new URL(href!, taskUrl).searchParams.get("id")!;
  const reason = "the data says \u202eevil\u202c here \u001b[31mred\u0007 end";
  const decided = await request.post("/api/trpc/escalation.decide", { data: { json: { escalationId, decision: "dead_end", deadEndReason: reason } } });
  expect(decided.ok(), await decided.text()).toBe(true);
  await page.goto(taskUrl);
  const status = page.getByTestId("status-reason");
  await expect(status).toContainText("Dead end: the data says \\u202eevil\\u202c here \\x1b[31mred\\x07 end");
  // No control reaches the page's text; the escapes are marked as escapes.
  expect(await status.textContent()).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
  await expect(status.locator("[data-control-escape]")).toHaveCount(4);
  // Laid out left to right as written: "evil" is not drawn as "live".
  const evil = await leftOf(status, "evil");
  expect(evil.first).toBeLessThan(evil.last);
  // The Result tab says the same reason the same way.
  await page.goto(`${taskUrl}?tab=result`);
  const result = page.getByTestId("dead-end-reason");
  await expect(result).toContainText("\\u202eevil\\u202c");
  const inResult = await leftOf(result, "evil");
  expect(inResult.first).toBeLessThan(inResult.last);
});

import { expect, test } from "@playwright/test";

// Issue 18: user-written text is bidi-isolated — an unpaired right-to-left override in a token's
// name stays inside its own element and cannot flip the page's text after it.

test("a token name with an unpaired RLO is rendered inside <bdi> on /account", async ({ page, request }) => {
  const name = `\u202Eevil-${Date.now()}`;
  const res = await request.post("/api/trpc/account.createToken", { data: { json: { name, expiresInDays: 1 } } });
  expect(res.ok(), await res.text()).toBe(true);
  await page.goto("/account");
  const cell = page.locator("bdi", { hasText: name.slice(1) });
  await expect(cell).toHaveCount(1);
  expect(await cell.textContent()).toBe(name);
});

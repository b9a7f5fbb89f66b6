import { expect, test } from "@playwright/test";
import { chromiumLaunchOptions } from "../../scripts/lib/chromium.ts";
import { launchLoopUntilEscalated } from "./helpers.ts";

// The full browser: the headless shell reports Notification.permission "denied" whatever is granted.
test.use({ launchOptions: chromiumLaunchOptions("browser") });

// Escalations reach a person: a signed-in handler with the dashboard open in a tab hears
// of a new escalation through a browser notification, not only through the nav's badge.

test("a handler with a tab open gets a browser notification when an escalation arrives", async ({ page, context }) => {
  await context.grantPermissions(["notifications"]);
  // Records what the page shows through the real Notification API (a spy that calls through).
  await context.addInitScript(() => {
    const Real = window.Notification;
    const shown: { title: string; body: string }[] = [];
    (window as unknown as { __notifications: typeof shown }).__notifications = shown;
    class Spy extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        shown.push({ title, body: options?.body ?? "" });
      }
    }
    Object.defineProperty(window, "Notification", { value: Spy, configurable: true, writable: true });
  });

  await page.goto("/tasks");
  await expect(page.getByRole("status").filter({ hasText: "Browser notifications on" })).toBeVisible();
  const shown = () => page.evaluate(() => (window as unknown as { __notifications: { title: string; body: string }[] }).__notifications);
  // Open escalations already waiting at load are the badge's, not a notification.
  expect(await shown()).toEqual([]);

  // Another tab of the same user launches a task that escalates (its 3rd identical call).
  const other = await context.newPage();
  await launchLoopUntilEscalated(other);

  // The first tab, untouched, polls the inbox count and notifies once the count grows.
  await expect.poll(async () => (await shown()).map((n) => n.title), { timeout: 30_000 }).toEqual(["Longhaul: an escalation waits on you"]);
  expect((await shown())[0]!.body).toMatch(/^1 new escalation; \d+ open for you in the inbox\.$/);

  // Decide it, so later specs do not find it open.
  await other.getByRole("link", { name: "Decide" }).click();
  const card = other.getByTestId("context-card");
  await card.getByLabel("Dead-end reason").fill("Checked by the notifications spec.");
  await card.getByRole("button", { name: "Mark dead end" }).click();
  await expect(other.getByTestId("decided")).toContainText("dead end");
});

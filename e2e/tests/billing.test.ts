import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { keepForLaterTests } from "../support/browser.ts";
import { addInstagramAccount, connectInstagram, registerNewUser, toast } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared, and webhooks arrive on their own time: be patient. */
const WAIT = { timeout: 30_000, interval: 200 };

async function openSubscription(page: Page) {
  await page.goto(`${ks.url}/settings?tab=subscription`);
  await page.getByTestId("subscription-tab").waitFor();
}

const status = (page: Page) => page.getByTestId("subscription-status").textContent();

/** /pricing → Upgrade to Pro → the sandbox's hosted Checkout page. */
async function startProCheckout(page: Page) {
  await page.goto(`${ks.url}/pricing`);
  await page.getByTestId("current-plan").waitFor();
  await page.getByRole("button", { name: "Upgrade to Pro" }).click();
  await page.waitForURL(/\/checkout\.stripe\.com\/c\/pay\//);
}

describe("plans and billing in the browser, against the sandbox's Stripe", () => {
  let page: Page;

  it("a declined card leaves the user on free with a clear message", async () => {
    ({ page } = await registerNewUser(browser, ks, "buyer"));
    keepForLaterTests(page);
    await connectInstagram(page, ks, "lumen.studio");
    await startProCheckout(page);
    await page.locator('input[name="card"]').fill("4000 0000 0000 0002");
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect.poll(() => page.getByText("Your card was declined.").count(), WAIT).toBe(1);
    await page.getByRole("button", { name: /Keepsake/ }).click();
    await page.waitForURL(`${ks.url}/pricing`);
    await expect
      .poll(() => toast(page, "Checkout cancelled. You are still on the Free plan.").count(), WAIT)
      .toBe(1);
    await openSubscription(page);
    expect(await status(page)).toBe("Free plan");
  });

  it("upgrades to Pro on the hosted checkout and sees Pro everywhere", async () => {
    await startProCheckout(page);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.waitForURL(`${ks.url}/billing/return?tier=pro`);
    await expect
      .poll(async () => (await page.locator("h1").first().textContent()) ?? "", WAIT)
      .toContain("Welcome to Pro!");

    await openSubscription(page);
    await expect.poll(() => status(page), WAIT).toBe("Active subscription");
    expect(await page.getByTestId("current-plan-name").textContent()).toBe("Pro");
    expect(await page.getByTestId("billing-amount").textContent()).toBe("$24.99/month");

    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByTestId("plan-badge").textContent(), WAIT).toBe("Pro plan");
    const panel = page.locator(".accounts-panel");
    await expect.poll(() => panel.getByText("1 of 3 connected").count(), WAIT).toBe(1);
    await addInstagramAccount(page, ks, "maya.creates", WAIT);
  });

  it("/pricing at 1280 px: the plan grid fits the page, the current plan's buttons stand apart", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${ks.url}/pricing`);
    const manage = page.getByRole("button", { name: "Manage Billing", exact: true });
    await manage.waitFor();
    const box = async (l: ReturnType<Page["locator"]>) => (await l.boundingBox())!;
    const card = await box(page.getByTestId("current-plan"));
    const grid = await box(page.locator(".plan-grid"));
    expect(grid.x).toBeGreaterThanOrEqual(card.x - 0.5);
    expect(grid.x + grid.width).toBeLessThanOrEqual(card.x + card.width + 0.5);
    const cards = await page.locator(".plan-card").all();
    for (const c of cards) {
      const b = await box(c);
      expect(b.x + b.width).toBeLessThanOrEqual(grid.x + grid.width + 0.5);
    }
    // Equal columns, and nothing inside a card wider than the card.
    const widths = await Promise.all(cards.map(async (c) => Math.round((await box(c)).width)));
    expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1);
    const a = await box(manage);
    const b = await box(page.getByRole("link", { name: "Manage in Settings" }));
    const apartX = a.x + a.width + 8 <= b.x || b.x + b.width + 8 <= a.x;
    const apartY = a.y + a.height + 8 <= b.y || b.y + b.height + 8 <= a.y;
    expect(apartX || apartY).toBe(true);
  });

  it("cancels in the billing portal and ends on free with automatic backup off", async () => {
    await openSubscription(page);
    await page.getByRole("button", { name: "Manage Billing" }).click();
    await page.waitForURL(/\/billing\.stripe\.com\/p\/session\//);
    await page.getByRole("button", { name: "Cancel immediately (sandbox)" }).click();
    await expect.poll(() => page.getByText("Your plan was canceled.").count(), WAIT).toBe(1);
    await page.getByRole("link", { name: "← Return to Keepsake" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=subscription`);
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByTestId("subscription-tab").waitFor();
        return status(page);
      }, WAIT)
      .toBe("Free plan");

    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByTestId("plan-badge").textContent(), WAIT).toBe("Free plan");
    await expect.poll(() => page.getByText("Manual backup mode").count(), WAIT).toBe(1);
    expect(await page.getByText("Automatic Backup Active").count()).toBe(0);
    // Both accounts stay connected; the newer one is paused until the user picks.
    const notice = page.getByTestId("paused-accounts");
    await expect.poll(() => notice.count(), WAIT).toBe(1);
    expect(await notice.textContent()).toContain("@maya.creates is paused");
    await page.context().close();
  });
});

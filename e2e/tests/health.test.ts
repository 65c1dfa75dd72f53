import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { keepForLaterTests } from "../support/browser.ts";
import { allowInstagram, registerNewUser, sandboxControl, seed, toast } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

// Issue 36: the first-run path on the dashboard, and one health state the dashboard, /backups
// and the bell share (Drive revoked → Reconnect everywhere, never "completed successfully";
// reconnected → the alert is resolved and the badge is ready again).
let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 30_000, interval: 250 };
const SYNC_WAIT = { timeout: 240_000, interval: 1_000 };
const DRIVE = "maya.chen@example.com";

/** The signed-in user's API, with the token the app keeps. */
async function apiGet<T>(page: Page, path: string): Promise<T> {
  const token = await page.evaluate(() => window.localStorage.getItem("keepsake.token"));
  const res = await fetch(`${ks.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

const noRunningSync = async (page: Page) =>
  (await apiGet<{ status: string }[]>(page, "/api/sync/sync-jobs")).every(
    (j) => j.status !== "running",
  );

/** On the sandbox's Google consent page: the address, Drive ticked, back on the dashboard. */
async function allowGoogle(page: Page) {
  await page.getByRole("dialog").getByRole("button", { name: "Continue to Google" }).click();
  await page.waitForURL(/\/accounts\.google\.com\//);
  await page.getByText(DRIVE).click();
  await page.locator('input[name="drive_file"]').check();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(/\/dashboard/);
}

let page: Page;
let email: string;

describe("first run and health", () => {
  it("a new Free user follows the dashboard's next step from registration to a first backup", async () => {
    ({ page, email } = await registerNewUser(browser, ks, "firstrun"));
    keepForLaterTests(page);
    await seed(ks, "setUser", { email, verified: true });
    const card = page.getByTestId("first-run");

    // Step 1: the dashboard says what to do and leads there.
    await expect.poll(() => card.textContent(), WAIT).toContain("Step 1 of 3");
    // "Connect first" answers link to where it is done.
    await page.getByRole("button", { name: "Start Backup" }).click();
    const connectFirst = toast(page, "Please connect your Instagram account first");
    await expect.poll(() => connectFirst.count(), WAIT).toBe(1);
    expect(await connectFirst.getByRole("link", { name: "Go to Connected Accounts" }).count()).toBe(
      1,
    );
    await card.getByRole("link", { name: "Connect Instagram" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=connections`);
    await page.getByRole("button", { name: "Connect Instagram" }).click();
    await allowInstagram(page, "maya.creates");
    await page.waitForURL(/\/dashboard/);

    // Step 2: Google Drive, from the card again.
    await expect.poll(() => card.textContent(), WAIT).toContain("Step 2 of 3");
    await card.getByRole("link", { name: "Connect Google Drive" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=connections`);
    await page.getByRole("button", { name: "Connect Google Drive" }).click();
    await allowGoogle(page);

    // Step 3: connecting started the first backup (or the card's button starts it); the card
    // goes once it ran, and the header says ready.
    await expect.poll(() => card.count(), SYNC_WAIT).toBe(0);
    await expect.poll(() => noRunningSync(page), SYNC_WAIT).toBe(true);
    await expect
      .poll(() => page.getByTestId("health-badge").textContent(), WAIT)
      .toBe("✓ Ready for backup");
    const stats = await apiGet<{ backed_up_posts: number }>(page, "/api/sync/dashboard/stats");
    expect(stats.backed_up_posts).toBeGreaterThan(0);
  }, 420_000);

  it("Drive revoked: the dashboard, /backups and the bell say Reconnect, never success; reconnecting resolves the alert", async () => {
    // Two new posts, and Google ends Drive access: the next backup cannot write them.
    await sandboxControl(ks, "/instagram/posts", { account: "maya.creates", count: 2 });
    await sandboxControl(ks, "/tokens/revoke", { google_email: DRIVE });
    await page.goto(`${ks.url}/dashboard`);
    await page.getByRole("button", { name: "Start Backup" }).click();

    // The toast names the cause and carries the fix (not "retry on the Backups page").
    const failed = toast(page, /failed|revoked/);
    await expect.poll(() => failed.count(), SYNC_WAIT).toBeGreaterThan(0);
    const words = (await failed.first().textContent()) ?? "";
    expect(words).not.toContain("retry on the Backups page");
    expect(words).toContain("Reconnect Google Drive");
    expect(await failed.first().getByRole("link", { name: "Reconnect Google Drive" }).count()).toBe(
      1,
    );
    // The badge follows without a reload.
    const badge = page.getByTestId("health-badge");
    await expect
      .poll(() => badge.textContent(), WAIT)
      .toBe("Backups paused: reconnect Google Drive");
    expect(await page.getByText("✓ Ready for backup").count()).toBe(0);

    // After a reload the banner says Reconnect, not Connect.
    await page.reload();
    await expect
      .poll(() => page.locator(".new-posts-banner").textContent(), WAIT)
      .toContain("Reconnect Google Drive");
    expect(await page.locator(".new-posts-banner").textContent()).not.toContain(
      "Connect Google Drive first",
    );

    // /backups: the run whose backups failed is not "completed successfully".
    await page.goto(`${ks.url}/backups`);
    const syncCard = page.getByRole("region", { name: "Current sync" });
    await expect.poll(() => syncCard.textContent(), WAIT).toContain("failed");
    const cardText = (await syncCard.textContent()) ?? "";
    expect(cardText).not.toMatch(/Successfully processed|Last sync completed/);
    expect(await syncCard.getByRole("link", { name: "Reconnect Google Drive" }).count()).toBe(1);

    // The bell: one open alert, with its fix.
    const bell = page.getByTestId("notification-bell");
    await bell.click();
    const alerts = page
      .getByTestId("notification-item")
      .filter({ hasText: "Reconnect Google Drive: your backups have stopped" });
    await expect.poll(() => alerts.count(), WAIT).toBe(1);
    expect(await alerts.first().getAttribute("data-resolved")).toBeNull();
    await alerts.first().getByRole("link", { name: "Reconnect" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=connections`);

    // Reconnect: the alert is resolved (and counts as read), the badge is ready again.
    await page.getByRole("button", { name: "Reconnect Google Drive" }).click();
    await allowGoogle(page);
    await expect
      .poll(() => page.getByTestId("health-badge").textContent(), WAIT)
      .toBe("✓ Ready for backup");
    await page.getByTestId("notification-bell").click();
    const resolved = page
      .getByTestId("notification-item")
      .filter({ hasText: "Reconnect Google Drive: your backups have stopped" });
    await expect.poll(() => resolved.first().getAttribute("data-resolved"), WAIT).toBe("true");
    expect(await resolved.count()).toBe(1);
    expect(await resolved.first().textContent()).toContain("Resolved");
    expect(await page.getByTestId("notification-count").count()).toBe(0);
  }, 420_000);
});

import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  connectDrive,
  connectInstagram,
  registerNewUser,
  sandboxControl,
  seed,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 30_000, interval: 250 };
const SYNC_WAIT = { timeout: 180_000, interval: 1_000 };

interface SandboxMail {
  subject: string;
  text: string;
  headers: Record<string, string>;
}

const inbox = (email: string) =>
  sandboxControl<SandboxMail[]>(ks, `/mail?to=${encodeURIComponent(email)}`);

/** The signed-in user's API, with the token the app keeps (SPEC §3). */
async function apiGet<T>(page: Page, path: string): Promise<T> {
  const token = await page.evaluate(() => window.localStorage.getItem("keepsake.token"));
  const res = await fetch(`${ks.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

describe("alerts", () => {
  it("Google revoked during a sync: exactly one alert e-mail and a bell entry whose Reconnect works", async () => {
    const { page, email } = await registerNewUser(browser, ks, "alerts");
    // Alerts are e-mailed to verified addresses only (verifying is the account mails' flow).
    await seed(ks, "setUser", { email, verified: true });
    await connectInstagram(page, ks, "lumen.studio");
    // Connecting Drive starts the first sync at once; Google revokes the grant while it runs.
    await connectDrive(page, ks, "jordan.lee@example.com");
    await sandboxControl(ks, "/tokens/revoke", { google_email: "jordan.lee@example.com" });

    const alertMails = async () =>
      (await inbox(email)).filter((m) => m.subject.startsWith("Reconnect Google Drive"));
    await expect.poll(async () => (await alertMails()).length, SYNC_WAIT).toBeGreaterThan(0);
    // Every sync has ended (each backup it queued met the revoked grant): still one e-mail.
    await expect
      .poll(
        async () =>
          (await apiGet<{ status: string }[]>(page, "/api/sync/sync-jobs")).filter(
            (j) => j.status === "running",
          ).length,
        SYNC_WAIT,
      )
      .toBe(0);
    const mails = await alertMails();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe("Reconnect Google Drive: your backups have stopped");
    expect(mails[0]!.text).toContain(`${ks.url}/settings?tab=connections`);
    expect(mails[0]!.headers["list-unsubscribe"]).toBeTruthy();

    // The bell counts it; its list links to the fix.
    await page.goto(`${ks.url}/dashboard`);
    const bell = page.getByTestId("notification-bell");
    await expect.poll(() => page.getByTestId("notification-count").textContent(), WAIT).toBe("1");
    await bell.click();
    const items = page.getByTestId("notification-item");
    await expect.poll(() => items.count(), WAIT).toBe(1);
    const item = items.first();
    expect(await item.textContent()).toContain("Reconnect Google Drive: your backups have stopped");
    await item.getByRole("link", { name: "Reconnect" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=connections`);
    // Following the link read it.
    await expect.poll(() => page.getByTestId("notification-count").count(), WAIT).toBe(0);

    // The fix works: reconnect Google Drive from there.
    await page.getByRole("button", { name: "Reconnect Google Drive" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Continue to Google" }).click();
    await page.waitForURL(/\/accounts\.google\.com\//);
    await page.getByText("jordan.lee@example.com").click();
    await page.locator('input[name="drive_file"]').check();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${ks.url}/dashboard?google_connected=true`);
    await expect
      .poll(
        async () =>
          (await apiGet<{ google_needs_reconnect: boolean }>(page, "/api/oauth/status"))
            .google_needs_reconnect,
        WAIT,
      )
      .toBe(false);
    expect(await alertMails()).toHaveLength(1);
  });

  it("Settings → Notifications turns a category's e-mails off and on", async () => {
    const { page } = await registerNewUser(browser, ks, "prefs");
    await page.goto(`${ks.url}/settings?tab=notifications`);
    const toggle = page.getByRole("switch", { name: "Billing" });
    await expect.poll(() => toggle.isChecked(), WAIT).toBe(true);
    expect(await page.getByRole("switch", { name: "Weekly digest" }).isChecked()).toBe(false);
    expect(await page.getByText("Your e-mail address is not verified yet").count()).toBe(1);
    await toggle.click();
    await expect
      .poll(
        async () =>
          (
            await apiGet<{ categories: { category: string; enabled: boolean }[] }>(
              page,
              "/api/notifications/preferences",
            )
          ).categories.find((c) => c.category === "alert_billing")?.enabled,
        WAIT,
      )
      .toBe(false);
    await page.reload();
    await expect
      .poll(() => page.getByRole("switch", { name: "Billing" }).isChecked(), WAIT)
      .toBe(false);
  });
});

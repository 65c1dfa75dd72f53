import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import { offsiteRequests } from "../support/browser.ts";
import {
  addInstagramAccount,
  allowFacebook,
  connectInstagram,
  connectViaFacebook,
  openSettings,
  registerNewUser,
  toast,
  withDatabase,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 15_000, interval: 100 };

const newUser = () => registerNewUser(browser, ks, "creator");

describe("connections in the browser", () => {
  it("connects Instagram and Google Drive, then shows 'Ready for backup'", async () => {
    const { page } = await newUser();
    await connectInstagram(page, ks, "lumen.studio");
    await expect
      .poll(() => toast(page, "Instagram account connected successfully!").count())
      .toBe(1);

    await openSettings(page, ks);
    await expect.poll(() => page.getByText("@lumen.studio").count(), WAIT).toBeGreaterThan(0);
    await page.getByRole("button", { name: "Connect Google Drive" }).click();
    const notice = page.getByRole("dialog");
    await expect
      .poll(() => notice.textContent())
      .toContain("only the specific Google Drive files you use with this app");
    await notice.getByRole("button", { name: "Continue to Google" }).click();

    await page.waitForURL(/\/accounts\.google\.com\//);
    await page.getByText("jordan.lee@example.com").click();
    const drive = page.locator('input[name="drive_file"]');
    expect(await drive.isChecked()).toBe(true);
    await page.getByRole("button", { name: "Continue" }).click();

    await page.waitForURL(`${ks.url}/dashboard`);
    await expect
      .poll(() => toast(page, "Google Drive connected successfully!").count(), WAIT)
      .toBe(1);
    await expect.poll(() => page.getByText("Ready for backup").count(), WAIT).toBe(1);

    await openSettings(page, ks);
    await expect.poll(() => page.getByText("jordan.lee@example.com").count(), WAIT).toBe(1);
    expect(offsiteRequests(page)).toEqual([]);

    // Disconnecting asks first; it frees @lumen.studio for the other tests.
    await page
      .getByRole("region", { name: "Instagram", exact: true })
      .getByRole("button", { name: "Disconnect" })
      .click();
    const confirm = page.getByRole("dialog", { name: "Disconnect Instagram?" });
    expect(await confirm.textContent()).toContain("Files already in your Google Drive stay");
    await confirm.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => toast(page, "Instagram disconnected").count(), WAIT).toBe(1);
    await expect
      .poll(() => page.getByRole("button", { name: "Connect Instagram" }).count(), WAIT)
      .toBe(1);
    await page.context().close();
  });

  it("unticking the Drive permission explains that it must be ticked", async () => {
    const { page } = await newUser();
    await openSettings(page, ks);
    await page.getByRole("button", { name: "Connect Google Drive" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Continue to Google" }).click();
    await page.waitForURL(/\/accounts\.google\.com\//);
    // A Google account that has never granted Drive to Keepsake.
    await page.getByText("sam.rivera@example.com").click();
    await page.locator('input[name="drive_file"]').uncheck();
    await page.getByRole("button", { name: "Continue" }).click();
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect.poll(() => toast(page, /tick the box/).count(), WAIT).toBe(1);
    expect(await page.getByText("Ready for backup").count()).toBe(0);
    await openSettings(page, ks);
    await expect
      .poll(() => page.getByRole("button", { name: "Connect Google Drive" }).count())
      .toBe(1);
    await page.context().close();
  });

  it("a personal Instagram account gets the persistent personal-account toast", async () => {
    const { page } = await newUser();
    await connectInstagram(page, ks, "sam.everyday");
    const personal = toast(page, "Only Professional (Business or Creator) Instagram accounts");
    await expect.poll(() => personal.count(), WAIT).toBe(1);
    expect(await personal.textContent()).toContain("Switch to professional account");
    expect(page.url()).toBe(`${ks.url}/dashboard`);
    // Persistent: still there after the usual 5 seconds.
    await page.waitForTimeout(5_500);
    expect(await personal.count()).toBe(1);
    await page.context().close();
  });

  it("a Facebook user without a page sees the red banner", async () => {
    const { page } = await newUser();
    await connectViaFacebook(page, ks, "Riley Fox");
    const banner = page.locator(".connection-banner");
    await expect.poll(() => banner.count(), WAIT).toBe(1);
    expect(await banner.textContent()).toContain("Facebook Page");
    await banner.getByRole("button", { name: "Dismiss" }).click();
    await expect.poll(() => banner.count(), WAIT).toBe(0);
    await page.context().close();
  });

  it("a pro user connects accounts up to three and is stopped at the fourth", async () => {
    const { page, email } = await newUser();
    withDatabase(
      ks,
      `await db.updateTable("users").set({ subscription_tier: "pro" }).where("email", "=", args[0]).execute();`,
      email,
    );
    await page.reload();
    const panel = page.locator(".accounts-panel");
    await expect.poll(() => panel.getByText("0 of 3 connected").count(), WAIT).toBe(1);

    // Add Account offers both logins: @lumen.studio through its Facebook Page, then
    // @maya.creates through Instagram Login.
    await panel.getByRole("button", { name: "Add Account" }).click();
    await panel.getByRole("button", { name: "Facebook Login" }).click();
    await allowFacebook(page, ks, "Jordan Lee");
    await expect
      .poll(() => panel.locator("article", { hasText: "@lumen.studio" }).count(), WAIT)
      .toBe(1);
    await addInstagramAccount(page, ks, "maya.creates", WAIT);
    // Settings offers the same choice.
    await openSettings(page, ks);
    const igCard = page.getByRole("region", { name: "Instagram", exact: true });
    await igCard.getByRole("button", { name: "Add Account" }).click();
    expect(await igCard.getByRole("button", { name: "Facebook Login" }).count()).toBe(1);
    expect(await igCard.getByRole("button", { name: "Instagram Login" }).count()).toBe(1);
    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.waitForURL(`${ks.url}/dashboard`);
    // The sandbox has two professional accounts; the third comes from the database.
    withDatabase(
      ks,
      `const [a] = await db.selectFrom("instagram_accounts").selectAll().where("username", "=", "maya.creates").execute();
       await db.insertInto("instagram_accounts").values({ ...a, id: undefined, instagram_user_id: "17841499999999999", username: "third.account" }).execute();`,
    );
    await page.reload();
    await expect.poll(() => panel.getByText("3 of 3 connected").count(), WAIT).toBe(1);
    expect(await panel.locator("article").count()).toBe(3);
    // At the limit the button says so before anyone is sent to a consent screen.
    await expect
      .poll(() => panel.getByRole("note").textContent())
      .toBe(
        "Account limit reached. You can connect up to 3 account(s) with your pro plan. Upgrade to Agency to connect up to 10 Instagram accounts",
      );
    expect(await panel.getByRole("button", { name: "Add Account" }).isDisabled()).toBe(true);
    await openSettings(page, ks);
    const settingsCard = page.getByRole("region", { name: "Instagram", exact: true });
    await expect
      .poll(() => settingsCard.getByRole("note").textContent(), WAIT)
      .toContain("Account limit reached. You can connect up to 3 account(s) with your pro plan.");
    expect(await settingsCard.getByRole("button", { name: "Add Account" }).isDisabled()).toBe(true);
    await page.goBack();
    await page.waitForURL(`${ks.url}/dashboard`);

    // The server refuses a fourth as well.
    const token = await page.evaluate(() => {
      for (let i = 0; i < localStorage.length; i++) {
        const v = localStorage.getItem(localStorage.key(i)!);
        if (v && /^ey/.test(v)) return v;
      }
      return null;
    });
    const res = await fetch(`${ks.url}/api/oauth/instagram/login`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      "Account limit reached. You can connect up to 3 account(s) with your pro plan.",
    );
    const viaFacebook = await fetch(`${ks.url}/api/oauth/facebook/auth-url`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(viaFacebook.status).toBe(403);
    expect(((await viaFacebook.json()) as { detail: string }).detail).toBe(
      "Account limit reached. You can connect up to 3 account(s) with your pro plan.",
    );

    // Disconnect one with confirmation: a slot opens again.
    await panel.getByRole("button", { name: "Disconnect @third.account" }).click();
    const dialog = page.getByRole("dialog");
    expect(await dialog.textContent()).toContain("stay where they are");
    await dialog.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => panel.getByText("2 of 3 connected").count(), WAIT).toBe(1);
    expect(await panel.getByRole("button", { name: "Add Account" }).isDisabled()).toBe(false);
    await page.context().close();
  });
});

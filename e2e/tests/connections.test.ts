import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { offsiteRequests } from "../support/browser.ts";
import {
  addInstagramAccount,
  allowFacebook,
  connectDrive,
  connectInstagram,
  connectViaFacebook,
  openSettings,
  registerNewUser,
  seed,
  toast,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 15_000, interval: 100 };
/** Webhooks and a first backup arrive on their own time. */
const LONG = { timeout: 240_000, interval: 500 };

/** Calls the API with the signed-in page's own session. */
function api<T>(page: Page, path: string, method = "GET"): Promise<T> {
  return page.evaluate(
    async ([url, verb]) => {
      const token = Object.values(localStorage).find((v) => v.split(".").length === 3) ?? "";
      const res = await fetch(url!, {
        method: verb!,
        headers: { authorization: `Bearer ${token.replace(/^"|"$/g, "")}` },
      });
      return res.json();
    },
    [path, method] as const,
  );
}

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
      .getByRole("button", { name: "Disconnect @lumen.studio" })
      .click();
    const confirm = page.getByRole("dialog", { name: "Disconnect @lumen.studio?" });
    expect(await confirm.textContent()).toContain("Files already in your Google Drive stay");
    await confirm.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => toast(page, "@lumen.studio disconnected").count(), WAIT).toBe(1);
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
    // Persistent: no timer closes it after the usual 5 seconds. A 5-second toast's progress bar
    // is an animation whose end closes it; this one's is held at zero (controlled), so it stays.
    expect(await personal.locator(".Toastify__progress-bar--animated").count()).toBe(0);
    expect(await personal.locator(".Toastify__progress-bar--controlled").count()).toBe(1);
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
    await seed(ks, "setUser", { email, tier: "pro" });
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
    await seed(ks, "copyInstagramAccount", {
      fromUsername: "maya.creates",
      instagramUserId: "17841499999999999",
      username: "third.account",
    });
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

    // Frees @lumen.studio and @maya.creates for the next test, one account at a time.
    const { accounts } = await api<{ accounts: { id: string }[] }>(
      page,
      "/api/accounts/instagram-accounts",
    );
    for (const a of accounts) {
      await api(page, `/api/oauth/instagram/disconnect?account_id=${a.id}`, "DELETE");
    }
    expect(
      (await api<{ accounts: unknown[] }>(page, "/api/accounts/instagram-accounts")).accounts,
    ).toEqual([]);
    await page.context().close();
  });

  it("Pro with two accounts downgrades to Premium, keeps one, and disconnects the paused one: the kept account and its records stay", async () => {
    const { page } = await newUser();
    const panel = page.locator(".accounts-panel");
    // Free: @lumen.studio from Settings; then Pro on the hosted checkout, and @maya.creates.
    await connectInstagram(page, ks, "lumen.studio");
    await page.goto(`${ks.url}/pricing`);
    await page.getByTestId("current-plan").waitFor();
    await page.getByRole("button", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/\/checkout\.stripe\.com\/c\/pay\//);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.waitForURL(`${ks.url}/billing/return?tier=pro`);
    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(() => page.getByTestId("plan-badge").textContent(), LONG).toBe("Pro plan");
    await expect.poll(() => panel.getByText("1 of 3 connected").count(), LONG).toBe(1);
    await addInstagramAccount(page, ks, "maya.creates", LONG);
    // 'All Accounts' is as tall as what it holds, not as the account cards beside it.
    const all = await panel.getByRole("button", { name: /All Accounts/ }).boundingBox();
    const card = await panel.locator("article", { hasText: "@maya.creates" }).boundingBox();
    expect(all!.height).toBeLessThan(card!.height / 2);

    // The billing portal: switch to Premium, which syncs one account.
    await page.goto(`${ks.url}/settings?tab=subscription`);
    await page.getByTestId("subscription-tab").waitFor();
    await page.getByRole("button", { name: "Manage Billing" }).click();
    await page.waitForURL(/\/billing\.stripe\.com\/p\/session\//);
    await page.getByRole("button", { name: /^Switch to Premium monthly/ }).click();
    await expect.poll(() => page.getByText("Switched to Premium monthly.").count(), LONG).toBe(1);
    await page.getByRole("link", { name: "← Return to Keepsake" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=subscription`);

    // The dashboard: the newer account is paused; the user keeps it instead.
    const notice = page.getByTestId("paused-accounts");
    await expect
      .poll(async () => {
        await page.goto(`${ks.url}/dashboard`);
        await page.getByTestId("plan-badge").waitFor();
        return notice.count();
      }, LONG)
      .toBe(1);
    expect(await page.getByTestId("plan-badge").textContent()).toBe("Premium plan");
    expect(await notice.textContent()).toContain(
      "1 Instagram account is paused because your Premium plan syncs 1 account.",
    );
    await notice.getByRole("button", { name: "Keep @maya.creates" }).click();
    await expect
      .poll(
        () => toast(page, "@maya.creates is synced again. Paused now: @lumen.studio.").count(),
        WAIT,
      )
      .toBe(1);
    await expect.poll(() => notice.textContent(), WAIT).toContain("@lumen.studio is paused");

    // Drive: the kept account's first backup starts at once (the paused one is not synced).
    await connectDrive(page, ks, "jordan.lee@example.com");
    await expect
      .poll(
        async () => (await api<{ is_syncing: boolean }>(page, "/api/sync/status")).is_syncing,
        LONG,
      )
      .toBe(false);
    const accounts = await api<{ accounts: { id: string; username: string }[] }>(
      page,
      "/api/accounts/instagram-accounts",
    );
    const maya = accounts.accounts.find((a) => a.username === "maya.creates")!;
    const records = async () => ({
      posts: (await api<{ total: number }>(page, `/api/sync/posts?account_id=${maya.id}&limit=1`))
        .total,
      backups: (
        await api<{ total: number }>(page, `/api/sync/backups?account_id=${maya.id}&limit=1`)
      ).total,
    });
    const before = await records();
    expect(before.posts).toBeGreaterThan(0);
    expect(before.backups).toBeGreaterThan(0);
    expect(
      (await api<{ instagram_username: string }>(page, "/api/oauth/status")).instagram_username,
    ).toBe("maya.creates");

    // Settings lists both accounts, each with its state and its own Disconnect.
    await openSettings(page, ks);
    const igCard = page.getByRole("region", { name: "Instagram", exact: true });
    const row = (username: string) => igCard.getByRole("listitem", { name: `@${username}` });
    await expect
      .poll(() => row("maya.creates").getByTestId("account-state").textContent(), WAIT)
      .toBe("Active");
    expect(await row("lumen.studio").getByTestId("account-state").textContent()).toBe(
      "Paused by plan",
    );
    await row("lumen.studio").getByRole("button", { name: "Disconnect @lumen.studio" }).click();
    const dialog = page.getByRole("dialog", { name: "Disconnect @lumen.studio?" });
    expect(await dialog.textContent()).toContain(
      "Files already in your Google Drive stay where they are.",
    );
    expect(await dialog.textContent()).toContain(
      "Your other Instagram account keeps its posts and backup records.",
    );
    await dialog.getByRole("button", { name: "Disconnect" }).click();
    await expect.poll(() => toast(page, /^@lumen\.studio disconnected/).count(), WAIT).toBe(1);
    await expect.poll(() => row("lumen.studio").count(), WAIT).toBe(0);
    expect(await row("maya.creates").getByTestId("account-state").textContent()).toBe("Active");

    // The kept account and all its records remain.
    const after = await api<{ accounts: { username: string; paused_by_plan: boolean }[] }>(
      page,
      "/api/accounts/instagram-accounts",
    );
    expect(after.accounts.map((a) => [a.username, a.paused_by_plan])).toEqual([
      ["maya.creates", false],
    ]);
    expect(await records()).toEqual(before);
    expect(offsiteRequests(page)).toEqual([]);
    await page.context().close();
  }, 420_000);
});

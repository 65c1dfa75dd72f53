import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { offsiteRequests } from "../support/browser.ts";
import {
  addInstagramAccount,
  connectDrive,
  openSettings,
  registerNewUser,
  sandboxControl,
  seed,
  toast,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { PHONE, phoneProblems, settled } from "../support/phone-check.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 20_000, interval: 200 };
/** A backup of a small account, to Drive and then copied to Dropbox, by the Keepsake's workers. */
const BACKUP_WAIT = { timeout: 150_000, interval: 1_000 };
const DESKTOP = { width: 1280, height: 900 };

/** The sandbox's fixed S3 store (sandbox/src/credentials.ts), as a person would type it. */
const S3 = {
  region: "us-east-1",
  bucket: "keepsake-demo",
  accessKeyId: "AKIASANDBOXKEEPSAKE1",
  secretAccessKey: "sandbox/keepsake/s3+secret/access/key00",
};

/** Calls the API with the signed-in page's own session. */
async function api<T>(page: Page, path: string): Promise<T> {
  const token = await page.evaluate(() => window.localStorage.getItem("keepsake.token"));
  const res = await fetch(`${ks.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

interface AccountRow {
  username: string;
  destination: string;
  synced_posts_count: number;
  backed_up_posts_count: number;
}

interface DropboxListing {
  accounts: { email: string; files: { path: string; size: number }[] }[];
}

/**
 * The phone's width, once the header has changed to its menu button (it follows a media query
 * after the resize: until then the desktop links, wrapped, would cover the page).
 */
async function toPhone(page: Page) {
  await page.setViewportSize(PHONE);
  await page.getByRole("button", { name: "Open menu" }).waitFor();
}

/** Settings → Storage: the card of one destination (a region named by its title). */
const card = (page: Page, title: string) => page.getByRole("region", { name: title, exact: true });

describe("choosing where backups go, in the browser", () => {
  it("connects Dropbox, OneDrive and S3 storage in Settings, switches an account to Dropbox, and its backups land there; the page and its dialogs fit a phone", async () => {
    // A small business account (4 posts and its stories): two whole backups fit the test's time.
    const { accounts } = await sandboxControl<{ accounts: { username: string }[] }>(
      ks,
      "/instagram/accounts",
      { count: 1, posts: 4 },
    );
    const username = accounts[0]!.username;
    const { page, email } = await registerNewUser(browser, ks, "destinations");
    await seed(ks, "setUser", { email, tier: "pro" });
    await page.reload();
    // A Pro plan connects several accounts: the dashboard's Add Account → Instagram Login.
    await addInstagramAccount(page, ks, username, WAIT);
    // Connecting Drive starts the first backup, to Drive (everyone's default).
    await connectDrive(page, ks, "jordan.lee@example.com");
    const account = async () =>
      (await api<{ accounts: AccountRow[] }>(page, "/api/accounts/instagram-accounts"))
        .accounts[0]!;
    await expect
      .poll(async () => {
        const a = await account();
        return a.synced_posts_count > 0 && a.backed_up_posts_count === a.synced_posts_count;
      }, BACKUP_WAIT)
      .toBe(true);
    expect((await account()).destination).toBe("google_drive");
    const panel = page.locator(".accounts-panel");
    await expect
      .poll(() => panel.getByTestId("account-destination").textContent(), WAIT)
      .toBe("Backed up to Google Drive");

    // Settings → Storage → Connect Dropbox → the sandbox's consent page → back on Settings.
    await openSettings(page, ks);
    const dropbox = card(page, "Dropbox");
    await dropbox.getByRole("button", { name: "Connect Dropbox" }).click();
    await page.waitForURL(/\/www\.dropbox\.com\/oauth2\/authorize/);
    await page.getByLabel(/Jordan Lee \(jordan\.lee@example\.com\)/).check();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(`${ks.url}/settings`);
    await expect.poll(() => toast(page, "Dropbox connected").count(), WAIT).toBe(1);
    await expect
      .poll(() => dropbox.getByText("Connected as jordan.lee@example.com").count(), WAIT)
      .toBe(1);
    expect(await dropbox.getByRole("button", { name: "Disconnect Dropbox" }).count()).toBe(1);

    // OneDrive: cancelled on Microsoft's consent page, then accepted for another person.
    const onedrive = card(page, "OneDrive");
    await onedrive.getByRole("button", { name: "Connect OneDrive" }).click();
    await page.waitForURL(/\/login\.microsoftonline\.com\/[^/]+\/oauth2\/v2\.0\/authorize/);
    await page.getByRole("button", { name: "Cancel" }).click();
    await page.waitForURL(`${ks.url}/settings`);
    await expect
      .poll(
        () => toast(page, "OneDrive was not connected: the authorization was cancelled.").count(),
        WAIT,
      )
      .toBe(1);
    expect(await onedrive.getByText(/^Connected as/).count()).toBe(0);
    await onedrive.getByRole("button", { name: "Connect OneDrive" }).click();
    await page.waitForURL(/\/login\.microsoftonline\.com\//);
    await page.getByLabel(/Camille Martin \(camille\.martin@example\.com\)/).check();
    await page.getByRole("button", { name: "Accept" }).click();
    await page.waitForURL(`${ks.url}/settings`);
    await expect.poll(() => toast(page, "OneDrive connected").count(), WAIT).toBe(1);
    await expect
      .poll(() => onedrive.getByText("Connected as camille.martin@example.com").count(), WAIT)
      .toBe(1);

    // S3 storage: the form, "Test connection" with the sandbox's keys, a wrong secret, Save.
    const s3 = card(page, "S3 storage");
    await s3.getByRole("button", { name: "Connect S3 storage" }).click();
    const form = page.getByRole("form", { name: "S3 storage" });
    const s3Host = new URL(ks.sandboxUrl).host;
    await form.getByLabel("Endpoint").fill(`${ks.sandboxUrl}/s3`);
    await form.getByLabel("Region").fill(S3.region);
    await form.getByLabel("Bucket").fill(S3.bucket);
    await form.getByLabel("Access key ID").fill(S3.accessKeyId);
    const secret = form.getByLabel("Secret access key", { exact: true });
    await secret.fill(S3.secretAccessKey);
    await form.getByRole("button", { name: "Test connection" }).click();
    await expect
      .poll(() => form.getByRole("status").textContent(), WAIT)
      .toBe(`Keepsake wrote, read back and deleted a test object in ${S3.bucket} at ${s3Host}.`);
    await secret.fill(`${S3.secretAccessKey.slice(0, -2)}99`);
    await form.getByRole("button", { name: "Test connection" }).click();
    await expect
      .poll(() => form.getByRole("alert").textContent(), WAIT)
      .toBe("The secret access key does not match the access key ID (check it, and the region).");
    // The form with its error fits a phone.
    await toPhone(page);
    expect(await phoneProblems(page, "/settings (S3 form with an error)")).toEqual([]);
    await page.setViewportSize(DESKTOP);
    // Saving tests the keys again: the wrong secret is refused, nothing is stored.
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => form.getByRole("alert").textContent(), WAIT).toContain("secret");
    expect(await s3.getByText(/^Connected as/).count()).toBe(0);
    await secret.fill(S3.secretAccessKey);
    await form.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => toast(page, "S3 storage connected").count(), WAIT).toBe(1);
    await expect.poll(() => form.count(), WAIT).toBe(0);
    await expect
      .poll(() => s3.getByText(`Connected as ${S3.bucket} at ${s3Host}`).count(), WAIT)
      .toBe(1);

    // The account's "Back up to" → Dropbox → the dialog → the toast.
    const choice = page.getByLabel(`Back up @${username} to`);
    expect(await choice.inputValue()).toBe("google_drive");
    expect(await choice.locator("option").allTextContents()).toEqual([
      "Google Drive",
      "Dropbox",
      "OneDrive",
      "S3 storage",
    ]);
    await choice.selectOption("dropbox");
    const dialog = page.getByRole("dialog", { name: `Back up @${username} to Dropbox?` });
    await expect.poll(() => dialog.count(), WAIT).toBe(1);
    const { synced_posts_count: posts } = await account();
    expect(await dialog.textContent()).toContain(
      `${posts} posts of @${username} will be copied to Dropbox; what is already in Google Drive stays there.`,
    );
    await dialog.getByRole("button", { name: "Switch to Dropbox" }).click();
    await expect
      .poll(
        () =>
          toast(
            page,
            `@${username} is now backed up to Dropbox: ${posts} posts are being copied there. What is in Google Drive stays there.`,
          ).count(),
        WAIT,
      )
      .toBe(1);
    await expect.poll(() => dialog.count(), WAIT).toBe(0);
    await expect.poll(() => choice.inputValue(), WAIT).toBe("dropbox");
    await expect.poll(() => dropbox.getByText("Used by 1 account").count(), WAIT).toBe(1);

    // Backup now on the dashboard (it joins the copy the switch started, or starts one).
    await page.getByRole("link", { name: "Dashboard", exact: true }).first().click();
    await page.waitForURL(`${ks.url}/dashboard`);
    await panel.getByTestId("account-destination").waitFor();
    expect(await panel.getByTestId("account-destination").textContent()).toBe(
      "Backed up to Dropbox",
    );
    await page.getByRole("button", { name: "Backup now" }).click();
    // Its end is toasted with where the posts are (the copy, or a run after it with nothing new).
    await expect
      .poll(
        () =>
          toast(
            page,
            new RegExp(
              `^(Backup completed successfully!|No new posts to back up\\.) ${posts} posts are in your Dropbox\\.$`,
            ),
          ).count(),
        BACKUP_WAIT,
      )
      .toBe(1);
    await expect
      .poll(async () => {
        const a = await account();
        return a.backed_up_posts_count === posts;
      }, BACKUP_WAIT)
      .toBe(true);

    // /backups: every row is in Dropbox.
    await page.getByRole("link", { name: "Backups", exact: true }).first().click();
    await page.waitForURL(`${ks.url}/backups`);
    const rows = page.getByTestId("backup-row");
    await expect.poll(() => rows.count(), WAIT).toBe(posts);
    await expect
      .poll(() => page.getByTestId("backup-destination").allTextContents(), WAIT)
      .toEqual(Array.from({ length: posts }, () => "In Dropbox"));

    // The sandbox's Dropbox holds each post once (its sidecar among its files), under the
    // account's folder in Keepsake's app folder.
    const listing = await sandboxControl<DropboxListing>(ks, "/dropbox/files");
    const jordan = listing.accounts.find((a) => a.email === "jordan.lee@example.com")!;
    const ours = jordan.files.filter((f) =>
      f.path.startsWith(`/Apps/Keepsake/Keepsake/@${username}/`),
    );
    expect(new Set(ours.map((f) => f.path)).size).toBe(ours.length);
    expect(ours.filter((f) => f.path.endsWith("_meta.json"))).toHaveLength(posts);
    for (const f of ours) {
      expect(f.path).toMatch(new RegExp(`^/Apps/Keepsake/Keepsake/@${username}/\\d{4}/[^/]+$`));
      expect(f.size).toBeGreaterThan(0);
    }

    // The dashboard's account card says where it is backed up.
    await page.getByRole("link", { name: "Dashboard", exact: true }).first().click();
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect
      .poll(() => panel.getByTestId("account-destination").textContent(), WAIT)
      .toBe("Backed up to Dropbox");

    // At 375 px: Settings with every destination connected, and the switch dialog.
    await page.goto(`${ks.url}/settings`);
    await toPhone(page);
    await settled(page);
    await expect.poll(() => choice.inputValue(), WAIT).toBe("dropbox");
    const problems = await phoneProblems(page, "/settings (storage connected)");
    await choice.selectOption("s3");
    const toS3 = page.getByRole("dialog", { name: `Back up @${username} to S3 storage?` });
    await expect.poll(() => toS3.count(), WAIT).toBe(1);
    problems.push(...(await phoneProblems(page, "/settings (switch dialog)")));
    await toS3.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => toS3.count(), WAIT).toBe(0);
    // Disconnecting the account would leave its files where they are: in Dropbox.
    await page.getByRole("button", { name: `Disconnect @${username}` }).click();
    const leave = page.getByRole("dialog", { name: `Disconnect @${username}?` });
    await expect.poll(() => leave.count(), WAIT).toBe(1);
    expect(await leave.textContent()).toContain(
      "Files already in your Dropbox stay where they are.",
    );
    problems.push(...(await phoneProblems(page, "/settings (disconnect dialog)")));
    await leave.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => leave.count(), WAIT).toBe(0);
    expect(problems).toEqual([]);
    // Cancelled: the account stays on Dropbox.
    expect(await choice.inputValue()).toBe("dropbox");
    expect((await account()).destination).toBe("dropbox");
    expect(offsiteRequests(page)).toEqual([]);
  }, 420_000);
});

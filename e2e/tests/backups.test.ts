import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { offsiteRequests } from "../support/browser.ts";
import {
  connectDrive,
  connectInstagram,
  registerInBrowser,
  sandboxControl,
  toast,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 20_000, interval: 200 };
/** A whole backup of the creator demo account (~100 MB through the sandbox). */
const BACKUP_WAIT = { timeout: 240_000, interval: 1_000 };
const PASSWORD = "Backup5!xy";

async function connectBoth(page: Page) {
  await connectInstagram(page, ks, "maya.creates");
  await connectDrive(page, ks, "maya.chen@example.com");
  // Both connected: the badge leaves "Checking…" for "Ready", or — when the first backup already
  // met the full Drive this test sets up — for the health state that says so.
  await expect
    .poll(async () => (await page.getByTestId("health-badge").textContent()) ?? "", WAIT)
    .toMatch(/Ready for backup|Google Drive is full/);
}

const rows = (page: Page) => page.getByTestId("backup-row");

describe("backups in the browser", () => {
  it("connects, starts a backup, watches the Backups screen fill in, filters and retries", async () => {
    const page = await registerInBrowser(browser, ks, {
      full_name: "Maya Chen",
      email: "maya.backups@example.com",
      password: PASSWORD,
    });
    // The first upload finds the Drive full: that backup fails and is retried below.
    await sandboxControl(ks, "/faults", {
      endpoint: "drive.upload",
      error: "drive:storageQuotaExceeded",
      count: 1,
    });
    // Connecting both starts the first backup; Start Backup follows it.
    await connectBoth(page);

    await page.getByRole("button", { name: "Start Backup" }).click();
    await page.getByRole("link", { name: "Backups" }).first().click();
    await page.waitForURL(`${ks.url}/backups`);
    await expect.poll(() => page.getByText("Auto-refreshing").count(), WAIT).toBe(1);
    // Rows appear while the sync runs, then the sync says it is done.
    await expect.poll(() => rows(page).count(), BACKUP_WAIT).toBeGreaterThan(0);
    // Issue 36: the run whose one backup Drive refused is not "Successfully processed": it
    // says what failed (deliberate change of this assertion).
    await expect
      .poll(() => page.getByText(/\d+ posts backed up, 1 backup failed/).count(), BACKUP_WAIT)
      .toBe(1);
    expect(await page.getByText(/Successfully processed/).count()).toBe(0);
    const total = await rows(page).count();
    expect(total).toBeGreaterThanOrEqual(42);

    await page.getByRole("button", { name: "Failed", exact: true }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(1);
    expect(await rows(page).first().textContent()).toContain("Your Google Drive is full");

    await page.getByRole("button", { name: "Completed", exact: true }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(total - 1);
    const view = rows(page).first().getByRole("link", { name: "View" });
    expect(await view.getAttribute("href")).toContain(`${ks.sandboxUrl}/drive/file/`);

    await page.getByRole("button", { name: "Failed", exact: true }).click();
    await expect.poll(() => rows(page).count(), WAIT).toBe(1);
    await rows(page).first().getByRole("button", { name: "Retry" }).click();
    await expect.poll(() => toast(page, "Backup retry started").count(), WAIT).toBe(1);
    await expect
      .poll(() => page.getByText('No backups with status "failed" found.').count(), BACKUP_WAIT)
      .toBe(1);
    await page.getByRole("button", { name: "Completed", exact: true }).click();
    await expect.poll(() => rows(page).count(), BACKUP_WAIT).toBe(total);

    // On a 375 px phone: no sideways scrolling, and each row shows its status and date on
    // screen (not only the Post column, with the rest scrolled out of sight).
    await page.setViewportSize({ width: 375, height: 800 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth), WAIT)
      .toBeLessThanOrEqual(375);
    const first = rows(page).first();
    for (const cell of [
      first.locator(".badge"),
      first.getByText(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/),
    ]) {
      const box = await cell.first().boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 375 && box.width > 0).toBe(true);
    }
    expect(await first.locator(".badge").first().textContent()).toBe("completed");
    await page.setViewportSize({ width: 1280, height: 900 });

    // In the drive: every file exactly once, organised by year under Keepsake/@maya.creates.
    const { files } = await sandboxControl<{
      files: { isFolder: boolean; folder: string; appProperties: Record<string, string> }[];
    }>(ks, "/drive/files?email=maya.chen%40example.com");
    const blobs = files.filter((f) => !f.isFolder);
    const keys = blobs.map((f) => f.appProperties.keepsakeMediaId);
    expect(new Set(keys).size).toBe(keys.length);
    expect(blobs.filter((f) => f.appProperties.keepsakeMediaId?.endsWith("_meta"))).toHaveLength(
      total,
    );
    for (const f of blobs) expect(f.folder).toMatch(/^Keepsake\/@maya\.creates\/\d{4}$/);
    expect(offsiteRequests(page)).toEqual([]);
  }, 420_000);
});

import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  connectDrive,
  connectInstagram,
  registerInBrowser,
  sandboxControl,
  seed,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 30_000, interval: 250 };
/** A whole backup of the creator demo account (~100 MB through the sandbox). */
const BACKUP_WAIT = { timeout: 240_000, interval: 1_000 };
const DAY = 86_400_000;

interface SandboxMedia {
  id: string;
  media_type: string;
  media_product_type?: string;
  pinned: boolean;
}

/** Whether the archive has the post as missed by a walk, or as gone (read by a separate process). */
async function presence(instagramId: string, state: "missed" | "gone"): Promise<boolean> {
  return (await seed(ks, "postPresence", { instagramId }))?.[state] ?? false;
}

/** The grid's Refresh: a sync that lists the account's posts (a walk when one is due). */
async function refresh(page: Page) {
  await page.getByRole("button", { name: "Refresh", exact: true }).click();
}

describe("posts deleted on Instagram", () => {
  it("shows the badge and the restore date after the walks, and the filter finds the post", async () => {
    const page = await registerInBrowser(browser, ks, {
      full_name: "Maya Chen",
      email: "maya.archive@example.com",
      password: "Archive5!xy",
    });
    await connectInstagram(page, ks, "maya.creates");
    await connectDrive(page, ks, "maya.chen@example.com");
    // Connecting both starts the first backup: the whole list is walked once.
    await page.getByRole("link", { name: "Backups" }).first().click();
    await page.waitForURL(`${ks.url}/backups`);
    await expect
      .poll(() => page.getByText(/Successfully processed \d+ posts/).count(), BACKUP_WAIT)
      .toBe(1);

    const { media } = await sandboxControl<{ media: SandboxMedia[] }>(
      ks,
      "/instagram/maya.creates/media",
    );
    const post = media.filter(
      (m) => !m.pinned && m.media_product_type === "FEED" && m.media_type === "IMAGE",
    )[2]!;
    await sandboxControl(ks, `/instagram/media/${post.id}/remove`, { as: "deleted" });

    await page.getByRole("link", { name: "Dashboard" }).first().click();
    await page.waitForURL(`${ks.url}/dashboard`);
    // A week since the last walk (its time moved back): the next sync walks the whole list
    // and misses the post once. One miss marks nothing.
    await seed(ks, "ageArchive", { walkDays: 8 });
    await refresh(page);
    await expect.poll(() => presence(post.id, "missed"), WAIT).toBe(true);
    expect(await presence(post.id, "gone")).toBe(false);

    // That walk a day ago (its miss moved back 25 hours): the next sync walks again, misses it
    // again, and Instagram answers 100/33 for it while the other posts resolve.
    await seed(ks, "ageArchive", { missHours: 25 });
    await refresh(page);
    await expect.poll(() => presence(post.id, "gone"), WAIT).toBe(true);

    // The dashboard's filter finds it, with its badge.
    await page.getByLabel("Post type").selectOption("gone");
    const tiles = page.getByTestId("post-tile");
    await expect.poll(() => tiles.count(), WAIT).toBe(1);
    const tile = page.locator(`[data-instagram-id="${post.id}"]`);
    expect(await tile.getByTestId("gone-badge").textContent()).toBe("No longer on Instagram");

    // Its details say until when Instagram can restore it: 30 days from when it was last seen.
    await tile.getByRole("button", { name: /Details of the post/ }).click();
    const note = page.getByRole("dialog").getByTestId("restore-note");
    await expect.poll(() => note.count(), WAIT).toBe(1);
    const text = (await note.textContent()) ?? "";
    const until = /you can still restore it there until (\w{3} \d{1,2}, \d{4})/.exec(text)?.[1];
    expect(text).toContain("Instagram keeps deleted posts for 30 days");
    expect(until).toBeDefined();
    const days = (new Date(`${until} 12:00`).getTime() - Date.now()) / DAY;
    expect(days).toBeGreaterThan(27);
    expect(days).toBeLessThan(31);
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();

    // The other posts are still on Instagram: no badge on them.
    // (A new visit: this tab's unfiltered grid may be cached from before the post was marked.)
    await page.goto(`${ks.url}/dashboard`);
    await expect.poll(() => tiles.count(), WAIT).toBeGreaterThan(30);
    await expect.poll(() => page.getByTestId("gone-badge").count(), WAIT).toBe(1);

    // /backups: the same filter, its one backup, never deleted from Drive.
    await page.getByRole("link", { name: "Backups" }).first().click();
    await page.waitForURL(`${ks.url}/backups`);
    await page.getByRole("button", { name: "No longer on Instagram" }).click();
    const rows = page.getByTestId("backup-row");
    await expect.poll(() => rows.count(), WAIT).toBe(1);
    const row = (await rows.first().textContent()) ?? "";
    expect(row).toContain("No longer on Instagram");
    expect(row).toContain(`you can still restore it there until ${until}`);
    expect(await rows.first().getAttribute("data-status")).toBe("completed");
  }, 420_000);
});

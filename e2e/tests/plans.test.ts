import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { offsiteRequests } from "../support/browser.ts";
import {
  allowInstagram,
  connectDrive,
  openSettings,
  registerNewUser,
  seed,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const LONG = { timeout: 240_000, interval: 1_000 };

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

interface Stats {
  total_posts: number;
  backed_up_posts: number;
  pending_backups: number;
  total_storage_used: number;
  next_sync_in: number | null;
}

const statValue = (page: Page, label: string) =>
  page.locator(".stat-card", { hasText: label }).locator(".stat-card-value").textContent();

const count = (n: number) => n.toLocaleString("en-US");

/** Same rule as the web app's formatBytes, for comparing the screen with the server. */
function bytes(n: number): string {
  if (n <= 0) return "0 Bytes";
  const units = ["Bytes", "KB", "MB", "GB"];
  const e = Math.min(Math.floor(Math.log(n) / Math.log(1024)), 3);
  const v = n / 1024 ** e;
  return `${e === 0 ? Math.round(v) : Number.parseFloat(v.toFixed(2))} ${units[e]}`;
}

describe("every plan from registration to the first completed backup", () => {
  for (const tier of ["free", "premium", "pro", "agency"] as const) {
    it(`${tier}: connect, first backup at once, every status text agrees with the server`, async () => {
      const { page, email } = await registerNewUser(browser, ks, `plan${tier}`);
      try {
        await walk(page, email, tier);
      } finally {
        // The next plan connects the same demo account.
        await api(page, "/api/oauth/instagram/disconnect", "DELETE").catch(() => undefined);
        await page.context().close();
      }
    }, 360_000);
  }
});

async function walk(page: Page, email: string, tier: "free" | "premium" | "pro" | "agency") {
  await seed(ks, "setUser", { email, tier });
  await page.reload();
  const state = page.getByTestId("tier-state");
  if (tier === "free") {
    await expect.poll(() => state.textContent()).toContain("Manual backup mode");
  } else {
    await expect.poll(() => state.textContent()).toContain("Automatic backup paused");
  }

  // Instagram: Settings for free and premium, Add Account → Instagram Login for pro and agency.
  await openSettings(page, ks);
  const igCard = page.getByRole("region", { name: "Instagram", exact: true });
  if (tier === "pro" || tier === "agency") {
    await igCard.getByRole("button", { name: "Add Account" }).click();
    await igCard.getByRole("button", { name: "Instagram Login" }).click();
  } else {
    await igCard.getByRole("button", { name: "Connect Instagram" }).click();
  }
  await allowInstagram(page, "maya.creates");
  await page.waitForURL(`${ks.url}/dashboard`);
  await connectDrive(page, ks, "maya.chen@example.com");

  // The first backup started on connecting; wait for the server to finish it.
  await expect
    .poll(
      async () => (await api<{ is_syncing: boolean }>(page, "/api/sync/status")).is_syncing,
      LONG,
    )
    .toBe(false);
  const status = await api<{
    sync_job: { status: string; posts_processed: number; mode: string };
  }>(page, "/api/sync/status");
  expect(status.sync_job).toMatchObject({ status: "completed", mode: "backup" });
  expect(status.sync_job.posts_processed).toBeGreaterThan(0);
  const stats = await api<Stats>(page, "/api/sync/dashboard/stats");
  expect(stats.pending_backups).toBe(0);
  expect(stats.backed_up_posts).toBeGreaterThan(0);

  // Dashboard: stats, tier card and badge say what the server says.
  await page.reload();
  await expect.poll(() => statValue(page, "Total Posts")).toBe(count(stats.total_posts));
  expect(await statValue(page, "Backed Up")).toBe(count(stats.backed_up_posts));
  expect(await statValue(page, "Pending")).toBe("0");
  expect(await statValue(page, "Storage Used")).toBe(bytes(stats.total_storage_used));
  // The badge says the server's health state once it has answered (neutral until then).
  await expect.poll(() => page.getByText("Ready for backup").count()).toBe(1);
  if (tier === "free") {
    expect(await state.textContent()).toContain("Manual backup mode");
    expect(await state.getByRole("button", { name: "Start Backup" }).count()).toBe(1);
  } else {
    expect(stats.next_sync_in).not.toBeNull();
    await expect.poll(() => state.textContent()).toContain("Automatic Backup Active");
    // The minutes count down: the page's own read may fall on either side of a minute's
    // turn from the test's reads, so the text matches the server just before or just after.
    const shown = await page.getByTestId("next-sync").textContent();
    const after = await api<Stats>(page, "/api/sync/dashboard/stats");
    const words = (m: number | null) => (m === 0 ? "less than a minute" : `${m} minute`);
    expect(
      [words(stats.next_sync_in), words(after.next_sync_in)].some((w) => shown?.includes(w)),
      `"${shown}" says ${stats.next_sync_in} or ${after.next_sync_in} minutes`,
    ).toBe(true);
    expect(await state.getByRole("button", { name: "Backup now" }).count()).toBe(1);
  }
  // maya.creates is within every plan's post limit: nothing is over the limit.
  expect(await page.getByTestId("over-limit").count()).toBe(0);
  const tiles = page.getByTestId("post-tile");
  await expect.poll(() => tiles.count()).toBeGreaterThan(0);
  const posts = await api<{ posts: { is_backed_up: boolean }[] }>(
    page,
    "/api/sync/posts?limit=36&offset=0",
  );
  expect(await tiles.filter({ hasText: "backed up" }).count()).toBe(
    posts.posts.filter((p) => p.is_backed_up).length,
  );
  expect(await tiles.filter({ hasText: "pending backup" }).count()).toBe(0);

  // Backups: the sync card and the rows agree with the server.
  await page.getByRole("link", { name: "Backups" }).first().click();
  await page.waitForURL(`${ks.url}/backups`);
  const card = page.getByRole("region", { name: "Current sync" });
  await expect
    .poll(() => card.textContent())
    .toContain(`Successfully processed ${status.sync_job.posts_processed} posts`);
  const { backups, total } = await api<{
    backups: { status: string; error_message: string | null }[];
    total: number;
  }>(page, "/api/sync/backups?limit=200");
  expect(backups).toHaveLength(total);
  const visible = backups.filter((b) => !b.error_message?.includes("skipped duplicate"));
  // The Backups screen shows its first page of 50.
  await expect
    .poll(() => page.getByTestId("backup-row").count())
    .toBe(Math.min(visible.length, 50));
  // Files a Drive already held count as backed up, though the table hides them.
  expect(backups.filter((b) => b.status === "completed")).toHaveLength(stats.backed_up_posts);

  // Settings: both connections show as connected, with the right names.
  await openSettings(page, ks);
  await expect.poll(() => igCard.textContent()).toContain("Connected");
  expect(await igCard.textContent()).toContain("@maya.creates");
  const drive = page.getByRole("region", { name: "Google Drive" });
  expect(await drive.textContent()).toContain("maya.chen@example.com");
  expect(await drive.textContent()).toContain("Connected");
  expect(offsiteRequests(page)).toEqual([]);
}

import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { registerNewUser, seed } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

// Issue 36: one account with posts in every state (backed up, failed, queued, listed, beyond
// the free plan's limit, and one beyond it that was backed up before): every screen that
// counts them says the same numbers as the server's one definition.
let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 30_000, interval: 250 };

async function apiGet<T>(page: Page, path: string): Promise<T> {
  const token = await page.evaluate(() => window.localStorage.getItem("keepsake.token"));
  const res = await fetch(`${ks.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

const number = (text: string | null) => Number((text ?? "").replace(/[^\d]/g, ""));

interface Stats {
  total_posts: number;
  backed_up_posts: number;
  pending_backups: number;
  failed_backups: number;
  unavailable_posts: number;
  posts_over_limit: number;
}

describe("counts that agree", () => {
  it("the dashboard cards, the free banner, the tier card and /backups give the server's numbers", async () => {
    const { page, email } = await registerNewUser(browser, ks, "counts");
    const states = [
      ...["completed", "failed", "pending", "listed", "completed", "pending", "failed"],
      ...["completed", "pending", "completed", "completed", "beyond-completed"],
      ...["beyond", "beyond", "beyond", "beyond"],
    ] as const;
    seed(ks, "accountInStates", {
      email,
      instagramUserId: "17841499000000036",
      username: "counts.everything",
      states: [...states],
    });
    await page.goto(`${ks.url}/dashboard`);

    const stats = await apiGet<Stats>(page, "/api/sync/dashboard/stats");
    // Each post in exactly one state.
    expect(stats).toMatchObject({
      total_posts: 16,
      backed_up_posts: 6,
      pending_backups: 4,
      failed_backups: 2,
      unavailable_posts: 0,
      posts_over_limit: 4,
    });

    // The dashboard's cards.
    const card = (label: string) =>
      page.locator(".stat-card", { hasText: label }).locator(".stat-card-value");
    await expect.poll(async () => number(await card("Total Posts").textContent()), WAIT).toBe(16);
    expect(number(await card("Backed Up").textContent())).toBe(stats.backed_up_posts);
    expect(number(await card("Pending").textContent())).toBe(stats.pending_backups);

    // The free banner: not backed up yet = pending + failed, the failed named.
    const banner = page.locator(".new-posts-banner .banner-title");
    await expect
      .poll(() => banner.textContent(), WAIT)
      .toContain(
        `${stats.pending_backups + stats.failed_backups} posts not backed up yet (${stats.failed_backups} failed)`,
      );
    // The tier card: the posts the plan leaves out.
    await expect
      .poll(() => page.getByTestId("over-limit").first().textContent(), WAIT)
      .toContain(
        `${stats.posts_over_limit} older posts are beyond your Free plan's 100-post limit`,
      );

    // /backups: each filter's count.
    await page.goto(`${ks.url}/backups`);
    const count = page.locator(".backups-count");
    for (const [filter, expected] of [
      ["Completed", stats.backed_up_posts],
      ["Failed", stats.failed_backups],
    ] as const) {
      await page.getByRole("button", { name: filter, exact: true }).click();
      await expect
        .poll(async () => `${filter}: ${number(await count.textContent())}`, WAIT)
        .toBe(`${filter}: ${expected}`);
    }
    // The health state's "Retry failed backups" fix opens the Failed filter.
    await page.goto(`${ks.url}/backups?filter=failed`);
    await expect
      .poll(async () => number(await count.textContent()), WAIT)
      .toBe(stats.failed_backups);
    expect(
      await page.getByRole("button", { name: "Failed", exact: true }).getAttribute("aria-pressed"),
    ).toBe("true");
  }, 240_000);
});

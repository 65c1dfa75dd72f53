import type { Browser, Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import { keepForLaterTests, offsiteRequests } from "../support/browser.ts";
import {
  connectDrive,
  connectInstagram,
  registerNewUser,
  sandboxControl,
  seed,
  toast,
} from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const newUser = () => registerNewUser(browser, ks, "dash");
/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 15_000, interval: 100 };

const tiles = (page: Page) => page.getByTestId("post-tile");
const statValue = (page: Page, label: string) =>
  page.locator(".stat-card", { hasText: label }).locator(".stat-card-value").textContent();

/** Every /api/sync/posts request the page makes, as its query parameters. */
function recordPostQueries(page: Page): URLSearchParams[] {
  const seen: URLSearchParams[] = [];
  page.on("request", (req: Request) => {
    const url = new URL(req.url());
    if (url.pathname === "/api/sync/posts") seen.push(url.searchParams);
  });
  return seen;
}

/** Calls the API with the signed-in page's own session. */
function apiOnPage<T>(page: Page, path: string): Promise<T> {
  return page.evaluate(async (url) => {
    const token = Object.values(localStorage).find((v) => v.split(".").length === 3) ?? "";
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${token.replace(/^"|"$/g, "")}` },
    });
    return res.json();
  }, path);
}

const syncingOnServer = async (page: Page) =>
  (await apiOnPage<{ is_syncing: boolean }>(page, "/api/sync/status")).is_syncing;

const postsTotalOnServer = async (page: Page) =>
  (await apiOnPage<{ total: number }>(page, "/api/sync/posts?limit=1&offset=0")).total;

/** How many posts the API reports backed up: on the first page (36) and in all. */
async function backedUpOnServer(page: Page): Promise<{ firstPage: number; all: number }> {
  type Answer = { posts: { is_backed_up: boolean }[] };
  const count = (r: Answer) => r.posts.filter((p) => p.is_backed_up).length;
  const first = await apiOnPage<Answer>(page, "/api/sync/posts?limit=36&offset=0");
  const second = await apiOnPage<Answer>(page, "/api/sync/posts?limit=36&offset=36");
  return { firstPage: count(first), all: count(first) + count(second) };
}

const currentPage = (page: Page) =>
  page
    .getByRole("navigation", { name: "Posts pages" })
    .locator('[aria-current="page"]')
    .textContent();

// One free creator goes through the whole flow; later tests continue with the same user.
let free: Page;
let total = 0;

describe("the dashboard in the browser", () => {
  it("a free user connects; the first backup starts at once; Start Backup follows it; tiles and stats agree", async () => {
    const { page } = await newUser();
    free = keepForLaterTests(page);

    await connectInstagram(page, ks, "maya.creates");
    expect(await page.getByText("Manual backup mode").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Start Backup" }).count()).toBe(1);
    expect(await page.getByText("Automatic Backup Active").count()).toBe(0);
    await expect.poll(() => statValue(page, "Total Posts"), WAIT).toBe("0");
    // Nothing is read before Drive is connected: the banner and the grid say so, together.
    const empty = page.getByTestId("awaiting-drive");
    await expect.poll(() => empty.count(), WAIT).toBe(1);
    expect(await empty.textContent()).toContain("Connect Google Drive to start the first backup.");
    expect(await page.getByText("No posts found").count()).toBe(0);
    const banner = page.getByRole("region", { name: "New posts" });
    await expect.poll(() => banner.count(), WAIT).toBe(1);
    await expect
      .poll(() => banner.textContent(), WAIT)
      .toContain("posts on Instagram wait for their first backup.");
    expect(await empty.textContent()).toContain(
      `Your ${(await banner.textContent())?.match(/(\d+) posts on Instagram/)?.[1]} Instagram posts appear here`,
    );
    expect(await banner.getByRole("link", { name: "Upgrade Now" }).getAttribute("href")).toBe(
      "/pricing",
    );
    expect(await banner.getByRole("button", { name: "Check Again" }).count()).toBe(1);
    expect(await banner.textContent()).toContain("5-15 minutes");

    // Slow the CDN so the first backup lasts long enough to follow (progress every 4th poll).
    await sandboxControl(ks, "/latency", { endpoint: "cdn", ms: 1200 });
    try {
      // Connecting Drive starts the first backup at once: no button to find first.
      await connectDrive(page, ks, "maya.chen@example.com");
      await expect.poll(() => page.getByText("Ready for backup").count(), WAIT).toBe(1);
      await expect
        .poll(() => page.getByRole("region", { name: "Sync in progress" }).count(), {
          timeout: 30_000,
        })
        .toBe(1);
      // Start Backup follows the backup that is already running.
      await page.getByRole("button", { name: "Start Backup" }).click();
      await expect
        .poll(() => toast(page, "A sync is already running").count(), WAIT)
        .toBeGreaterThan(0);
      await expect
        .poll(() => page.getByRole("button", { name: "Backing up..." }).count(), WAIT)
        .toBe(1);
      await expect
        .poll(() => toast(page, /Processing \d+ of \d+ posts\.\.\.|Starting sync\.\.\./).count(), {
          timeout: 60_000,
        })
        .toBeGreaterThan(0);
      // Progress followed: the rest of the backup at full speed.
      await sandboxControl(ks, "/latency", { endpoint: "cdn", ms: 0 });
      await expect
        .poll(
          () =>
            toast(
              page,
              /^Backup completed successfully! \d+ posts are in your Google Drive\.$/,
            ).count(),
          {
            timeout: 120_000,
          },
        )
        .toBe(1);
      // No progress toast outlives the completion.
      await expect
        .poll(() => toast(page, /Processing \d+ of \d+ posts/).count(), { timeout: 5_000 })
        .toBe(0);
    } finally {
      await sandboxControl(ks, "/latency", { endpoint: "cdn", ms: 0 });
    }
    await expect
      .poll(() => page.getByRole("button", { name: "Start Backup" }).count(), WAIT)
      .toBe(1);
    // maya.creates has more than one page of posts and stories, all listed and backed up.
    total = await postsTotalOnServer(page);
    expect(total).toBeGreaterThan(36);
    expect(total).toBeLessThanOrEqual(72);
    await expect
      .poll(() => statValue(page, "Total Posts"), { timeout: 15_000 })
      .toBe(String(total));
    // What the server says is backed up is what the tiles, the stats and the toast show.
    const server = await backedUpOnServer(page);
    expect(server.all).toBeGreaterThan(total / 2);
    await expect
      .poll(() => tiles(page).filter({ hasText: "backed up" }).count(), { timeout: 15_000 })
      .toBe(server.firstPage);
    await expect
      .poll(() => statValue(page, "Backed Up"), { timeout: 10_000 })
      .toBe(String(server.all));
    expect(await toast(page, `${server.all} posts are in your Google Drive.`).count()).toBe(1);
    expect(await statValue(page, "Pending")).toBe("0");
    expect(await statValue(page, "Storage Used")).toMatch(/^\d+(\.\d+)? (KB|MB|GB)$/);

    // Refresh only lists posts from Instagram, and says so.
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect
      .poll(
        () =>
          toast(page, "Refreshing your posts from Instagram (this does not back them up)").count(),
        WAIT,
      )
      .toBe(1);
    await expect.poll(() => syncingOnServer(page), { timeout: 30_000 }).toBe(false);
    expect(offsiteRequests(page)).toEqual([]);
  }, 240_000);

  it("search and the type filter go back to page 1", async () => {
    const page = free;
    const queries = recordPostQueries(page);
    const nav = page.getByRole("navigation", { name: "Posts pages" });
    await nav.getByRole("button", { name: "Page 2" }).click();
    await expect.poll(() => currentPage(page), WAIT).toBe("2");
    await expect.poll(() => tiles(page).count(), WAIT).toBe(total - 36);
    expect(queries.at(-1)?.get("offset")).toBe("36");

    await page.getByPlaceholder("Search posts...").fill("a");
    await expect.poll(() => queries.at(-1)?.get("search"), WAIT).toBe("a");
    expect(queries.at(-1)?.get("offset")).toBe("0");
    expect(queries.filter((q) => q.get("search") && q.get("offset") !== "0")).toEqual([]);

    await page.getByPlaceholder("Search posts...").fill("no caption says this");
    await expect.poll(() => page.getByText("No posts found").count(), WAIT).toBe(1);
    expect(await page.getByText("Try a different search term").count()).toBe(1);

    await page.getByPlaceholder("Search posts...").fill("");
    await expect.poll(() => tiles(page).count(), WAIT).toBe(36);
    await nav.getByRole("button", { name: "Page 2" }).click();
    await expect.poll(() => currentPage(page), WAIT).toBe("2");
    await page.getByRole("combobox", { name: "Post type" }).selectOption({ label: "Photos Only" });
    await expect.poll(() => queries.at(-1)?.get("media_type"), WAIT).toBe("image");
    expect(queries.at(-1)?.get("offset")).toBe("0");
    await expect
      .poll(
        async () => (await tiles(page).allTextContents()).every((t) => t.includes("Photo")),
        WAIT,
      )
      .toBe(true);
    await page.getByRole("combobox", { name: "Post type" }).selectOption({ label: "Videos Only" });
    await expect.poll(() => queries.at(-1)?.get("media_type"), WAIT).toBe("video");
    await expect
      .poll(async () => {
        const all = await tiles(page).allTextContents();
        return all.length > 0 && all.every((t) => t.includes("Video"));
      }, WAIT)
      .toBe(true);
  });

  it("a video opens in a modal player that Escape closes", async () => {
    const page = free;
    // The Videos Only filter is still on.
    const tile = page.getByRole("button", { name: /^Play video/ }).first();
    await tile.click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.count(), WAIT).toBe(1);
    const src = await dialog.locator("video").getAttribute("src");
    expect(src).toMatch(/^http:\/\/(127\.0\.0\.1|localhost):\d+\//);
    expect(await dialog.textContent()).toMatch(/likes/);
    // Focus is in the dialog, and Tab keeps it there.
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count(), WAIT).toBe(0);
    expect(await tile.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.getByRole("combobox", { name: "Post type" }).selectOption({ label: "All Posts" });
  });

  it("a broken image is retried once through the media proxy, then shows a placeholder", async () => {
    // Each phase opens the dashboard in a fresh tab of the same session rather than reloading:
    // a reloading page aborts its lazy images as it unloads, their error handlers fire, and
    // the dying page's proxy requests would be counted against the new one.
    const context = free.context();
    let proxied = new Map<string, number>();
    async function openDashboard(previous: Page): Promise<Page> {
      await previous.close();
      const page = await context.newPage();
      // A route turns the browser's cache off for this tab, so the expired CDN URLs are really
      // fetched again rather than shown from the earlier visit's cache.
      await page.route("**/cdn/**", (route) => route.continue());
      proxied = new Map();
      page.on("request", (req: Request) => {
        const m = new URL(req.url()).pathname.match(/^\/api\/sync\/instagram-media\/(.+)$/);
        if (m?.[1]) proxied.set(m[1], (proxied.get(m[1]) ?? 0) + 1);
      });
      await page.goto(`${ks.url}/dashboard`);
      await expect.poll(() => tiles(page).count(), WAIT).toBe(36);
      return page;
    }
    // Every stored CDN URL expires, and Graph fails too: after the one proxy attempt, the
    // placeholder shows.
    await sandboxControl(ks, "/cdn/expire", {});
    await sandboxControl(ks, "/faults", {
      endpoint: "ig.media.get",
      count: 500,
      error: "http:500",
    });
    let page = free;
    try {
      page = await openDashboard(page);
      await expect
        .poll(() => page.getByTestId("image-placeholder").count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      await expect
        .poll(
          async () => {
            const placeholders = await page.getByTestId("image-placeholder").count();
            return `${placeholders} placeholders, ${proxied.size} proxied`;
          },
          { timeout: 60_000 },
        )
        .toBe(`${proxied.size} placeholders, ${proxied.size} proxied`);
      expect([...proxied.values()].every((n) => n === 1)).toBe(true);
      expect(await page.locator('[data-testid="post-tile"] img[src^="blob:"]').count()).toBe(0);
    } finally {
      await sandboxControl(ks, "/faults", undefined, "DELETE");
    }

    // With Graph back, the proxy serves a fresh copy: the picture shows from the proxy.
    page = await openDashboard(page);
    await expect
      .poll(() => page.locator('[data-testid="post-tile"] img[src^="blob:"]').count(), {
        timeout: 20_000,
      })
      .toBeGreaterThan(0);
    expect(await page.getByTestId("image-placeholder").count()).toBe(0);
    expect([...proxied.values()].every((n) => n === 1)).toBe(true);
    await context.close();
  });

  it("a premium user without Drive sees automatic backup paused, not active", async () => {
    const { page, email } = await newUser();
    await seed(ks, "setUser", { email, tier: "premium" });
    await page.reload();
    // With nothing connected, nothing is active: the card says what to connect.
    const state = page.getByTestId("tier-state");
    await expect.poll(() => state.textContent(), WAIT).toContain("Automatic backup paused");
    expect(await state.getByRole("link", { name: "Connect Instagram" }).count()).toBe(1);
    expect(await state.getByRole("link", { name: "Connect Google Drive" }).count()).toBe(1);
    await connectInstagram(page, ks, "lumen.studio");
    await expect.poll(() => state.textContent(), WAIT).toContain("Automatic backup paused");
    expect(await state.getByRole("link", { name: "Connect Instagram" }).count()).toBe(0);
    expect(await state.getByRole("link", { name: "Connect Google Drive" }).count()).toBe(1);
    expect(await page.getByText("Automatic Backup Active").count()).toBe(0);
    expect(await page.getByTestId("next-sync").count()).toBe(0);
    expect(await page.getByText("Ready for backup").count()).toBe(0);
    expect(await page.getByText("Manual backup mode").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Start Backup" }).count()).toBe(0);
    expect(await page.getByRole("region", { name: "New posts" }).count()).toBe(0);
    await page.context().close();
  });

  it("Settings → Profile Information saves the full name", async () => {
    const { page, email } = await newUser();
    await page.goto(`${ks.url}/settings?tab=profile`);
    const emailField = page.getByLabel("Email address");
    expect(await emailField.inputValue()).toBe(email);
    expect(await emailField.isEditable()).toBe(false);
    expect(await page.getByText(/More settings are coming/).count()).toBe(1);
    await page.getByLabel("Full name").fill("Renamed Person");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await expect.poll(() => toast(page, "Profile updated successfully").count(), WAIT).toBe(1);
    await page.goto(`${ks.url}/dashboard`);
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent())
      .toBe("Renamed Person");
    await page.context().close();
  });
});

import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import { registerNewUser, seed } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

/** The machine is shared: give the browser time before a check fails. */
const WAIT = { timeout: 30_000, interval: 250 };

const READINGS = [
  { daysAgo: 40, likes: 120, comments: 8, views: 900 },
  { daysAgo: 39, likes: 310, comments: 21, views: 2400 },
  { daysAgo: 33, likes: 402, comments: 30, views: 3100 },
  { daysAgo: 10, likes: 455, comments: 33, views: 3650 },
  { daysAgo: 3, likes: 461, comments: 35, views: 3702 },
];
const CAPTION = "Morning light over the harbour — a five-reading post";

describe("the archive in the app", () => {
  it("a post's details: on the modal (Tab stays inside, Escape closes, focus back on its tile), with its picture, caption, link and every reading on the chart; an imported item is marked in the grid and /backups", async () => {
    const { page, email } = await registerNewUser(browser, ks, "details");
    await seed(ks, "postsWithReadings", {
      email,
      instagramUserId: "17841400000088001",
      username: "harbour.light",
      posts: [
        {
          instagramId: "90000000000000001",
          caption: CAPTION,
          permalink: "https://www.instagram.com/p/HARBOUR1/",
          source: "api",
          daysOld: 41,
          readings: READINGS,
        },
        {
          instagramId: "90000000000000002",
          caption: "An archived story from the export",
          permalink: null,
          source: "export",
          daysOld: 400,
          readings: [],
        },
      ],
    });
    await page.goto(`${ks.url}/dashboard`);
    const tile = page.locator('[data-instagram-id="90000000000000001"]');
    await expect.poll(() => tile.count(), WAIT).toBe(1);
    // The tile's counts are the latest reading, as the details' header is.
    expect(await tile.textContent()).toContain("♥ 461");

    const opener = tile.getByRole("button", { name: /Details of the post/ });
    await opener.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.count(), WAIT).toBe(1);
    await expect
      .poll(() => dialog.getByTestId("details-caption").textContent(), WAIT)
      .toBe(CAPTION);
    expect(await dialog.getByTestId("details-thumb").count()).toBe(1);
    const link = dialog.getByRole("link", { name: "Open on Instagram" });
    expect(await link.getAttribute("href")).toBe("https://www.instagram.com/p/HARBOUR1/");
    expect(await link.getAttribute("target")).toBe("_blank");
    expect(await dialog.getByTestId("details-likes").textContent()).toBe("461");
    expect(await dialog.getByTestId("details-comments").textContent()).toBe("35");
    expect(await dialog.getByTestId("details-views").textContent()).toBe("3,702");

    // Every reading is a point of the chart (one per line), and a row of the table.
    const chart = dialog.getByTestId("history-chart");
    // (Recharts draws each line's dots in a group of their own, above the lines.)
    const dots = chart.locator(".recharts-line-dots");
    await expect.poll(() => dots.count(), WAIT).toBe(3); // likes, comments, views
    for (let i = 0; i < 3; i++)
      expect(await dots.nth(i).locator(".recharts-line-dot").count()).toBe(READINGS.length);
    expect(await dialog.getByRole("table", { name: "Readings" }).locator("tbody tr").count()).toBe(
      READINGS.length,
    );

    // Tab and Shift+Tab never reach the page behind (between rounds the browser may offer its
    // own UI: no element of the page has focus then).
    const focused = () =>
      page.evaluate(() => {
        const active = document.activeElement;
        if (!active || active === document.body) return "none";
        return active.closest("dialog") ? "dialog" : `page: ${active.outerHTML.slice(0, 120)}`;
      });
    for (const key of ["Tab", "Shift+Tab"]) {
      const seen: string[] = [];
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press(key);
        seen.push(await focused());
      }
      expect(seen).toContain("dialog");
      expect(seen.filter((f) => f !== "dialog" && f !== "none")).toEqual([]);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count(), WAIT).toBe(0);
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);

    // The imported item: marked on its tile, which opens its details.
    const imported = page.locator('[data-instagram-id="90000000000000002"]');
    expect(await imported.getByTestId("export-badge").textContent()).toBe("From your export");
    await imported.getByRole("button", { name: /^Open details/ }).click();
    await expect.poll(() => dialog.count(), WAIT).toBe(1);
    expect(await dialog.getByTestId("export-badge").count()).toBe(1);
    expect(await dialog.getByTestId("details-caption").textContent()).toBe(
      "An archived story from the export",
    );
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count(), WAIT).toBe(0);

    // /backups: both, the imported one marked.
    await page.goto(`${ks.url}/backups`);
    const rows = page.getByTestId("backup-row");
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    const marked = rows.filter({ has: page.getByTestId("export-badge") });
    expect(await marked.count()).toBe(1);
    expect(await marked.textContent()).toContain("An archived story from the export");
    await page.context().close();
  }, 180_000);
});

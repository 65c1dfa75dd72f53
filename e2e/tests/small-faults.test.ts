import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { connectViaFacebook, registerNewUser, seed } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const newUser = () => registerNewUser(browser, ks, "faults");

/** WCAG contrast ratio of an element's text colour against a background element's colour. */
function contrast(page: Page, text: string, background: string): Promise<number> {
  return page.evaluate(
    ([fg, bg]) => {
      const rgb = (el: Element, prop: "color" | "backgroundColor") =>
        (getComputedStyle(el)[prop].match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const c = [r, g, b].map((v) => {
          const s = (v ?? 0) / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
      };
      const a = lum(rgb(document.querySelector(fg)!, "color"));
      const b = lum(rgb(document.querySelector(bg)!, "backgroundColor"));
      return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    },
    [text, background] as const,
  );
}

describe("the small faults of issue 15", () => {
  it("the red banner explains once, and its Dismiss is readable on red", async () => {
    const { page } = await newUser();
    await connectViaFacebook(page, ks, "Riley Fox");
    const banner = page.locator(".connection-banner");
    await expect.poll(() => banner.count()).toBe(1);
    const text = (await banner.textContent()) ?? "";
    expect(text.split("Account type and tools").length - 1).toBe(1);
    expect(
      await contrast(page, ".connection-banner-dismiss", ".connection-banner"),
    ).toBeGreaterThanOrEqual(4.5);
    await page.context().close();
  });

  it("at 375 px every Settings tab is fully on screen", async () => {
    const { page } = await newUser();
    await page.setViewportSize({ width: 375, height: 800 });
    await openSettingsFromMenu(page);
    const tabs = page.getByRole("tab");
    await expect.poll(() => tabs.count()).toBe(6);
    for (const tab of await tabs.all()) {
      const box = await tab.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    }
    const clipped = await page
      .getByRole("tablist", { name: "Settings" })
      .evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(clipped).toBe(false);
    await page.context().close();
  });

  it("at 1366 px sizes and dates in /backups stay on one line", async () => {
    const { page, email } = await newUser();
    // A finished backup and a failed one with a long message, straight into the database.
    await seed(ks, "accountWithBackups", {
      email,
      instagramUserId: "17841400000077001",
      username: "wide.table",
      postPrefix: "wide_",
      caption: "A long caption that fills the post column of the backups table on a laptop screen",
      backups: [
        { status: "completed" },
        {
          status: "failed",
          errorMessage:
            "Instagram is not responding right now. Please try again in a few minutes, or retry this backup from the Backups page.",
        },
      ],
    });
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${ks.url}/backups`);
    const rows = page.getByTestId("backup-row");
    await expect.poll(() => rows.count()).toBe(2);
    const lines = await page.evaluate(() =>
      [...document.querySelectorAll(".backup-nowrap")].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return `${cell.textContent}: ${tops.size}`;
      }),
    );
    expect(lines).toHaveLength(4);
    expect(lines.filter((l) => !l.endsWith(": 1"))).toEqual([]);
    await page.context().close();
  });
});

/** At 375 px the navigation sits behind the menu button. */
async function openSettingsFromMenu(page: Page) {
  const menu = page.getByRole("button", { name: /menu/i });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole("link", { name: "Settings" }).first().click();
  await page.waitForURL(/\/settings$/);
}

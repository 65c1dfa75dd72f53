import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage, offsiteRequests } from "../support/browser.ts";
import { registerNewUser, seed, toast } from "../support/flows.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const v1 = (key: string, path: string) =>
  fetch(`${ks.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

/** Errors the browser reported on the page (a Content-Security-Policy refusal among them). */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

describe("API keys and the public API", () => {
  it("creates a key in Settings, copies it, calls /api/v1/posts, revokes it, is refused", async () => {
    const { page, email } = await registerNewUser(browser, ks, "apikeys");
    await seed(ks, "setUser", { email, tier: "pro" });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {
      origin: ks.url,
    });
    await page.goto(`${ks.url}/settings`);
    await page.getByRole("tab", { name: "API keys" }).click();
    await page.waitForURL(`${ks.url}/settings?tab=api-keys`);
    await page.getByLabel("Key name").fill("e2e script");
    await page.getByRole("button", { name: "Create key" }).click();

    const shown = (await page.getByTestId("new-api-key").textContent()) ?? "";
    expect(shown).toMatch(/^ks_live_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => toast(page, "API key copied").count()).toBe(1);
    const key = await page.evaluate(() => navigator.clipboard.readText());
    expect(key).toBe(shown);

    const row = page.locator("tr", { hasText: "e2e script" });
    await expect.poll(() => row.textContent()).toContain(`${key.slice(0, 12)}…`);
    await expect.poll(() => row.textContent()).toContain("Never");

    // On a 375 px phone the page does not scroll sideways and the key's row fits on screen.
    await page.setViewportSize({ width: 375, height: 800 });
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(375);
    for (const part of [row.getByText("Never"), row.getByRole("button", { name: /Revoke/ })]) {
      const box = await part.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    }
    await page.setViewportSize({ width: 1280, height: 900 });

    const ok = await v1(key, "/posts?limit=5");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ posts: [], next_cursor: null });
    expect(ok.headers.get("ratelimit-limit")).toBe("60");

    // The last use shows once the list is read again.
    await page.reload();
    await expect.poll(() => row.textContent()).not.toContain("Never");

    // The confirmation is a modal dialog: Tab and Shift+Tab reach its buttons and never a
    // control of the page behind (between rounds the browser may offer its own UI: no element
    // of the page has focus then), and Escape gives focus back to the button that opened it.
    const opener = page.getByRole("button", { name: "Revoke e2e script" });
    await opener.click();
    const dialog = page.getByRole("dialog", { name: 'Revoke "e2e script"?' });
    await dialog.waitFor();
    const focused = () =>
      page.evaluate(() => {
        const active = document.activeElement;
        if (!active || active === document.body) return "none";
        return active.closest("dialog, [role=dialog]")
          ? (active.textContent ?? "")
          : `page: ${active.outerHTML}`;
      });
    expect(await focused()).toBe("Cancel");
    for (const key of ["Tab", "Shift+Tab"]) {
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        await page.keyboard.press(key);
        seen.push(await focused());
      }
      expect(seen).toEqual(expect.arrayContaining(["Cancel", "Revoke"]));
      expect(seen.filter((f) => f !== "none" && f !== "Cancel" && f !== "Revoke")).toEqual([]);
    }
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await opener.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await row.count()).toBe(1);

    await opener.click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => row.count()).toBe(0);
    const refused = await v1(key, "/posts");
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: "Invalid or revoked API key" });
    expect(offsiteRequests(page)).toEqual([]);
  });

  it("/docs shows the v1 base URL and renders the reference from /api/v1/openapi.json", async () => {
    const page = await newPage(browser);
    const errors = consoleErrors(page);
    await page.goto(`${ks.url}/docs`);
    await expect
      .poll(() => page.getByTestId("api-base-url").textContent())
      .toBe(`${ks.url}/api/v1`);
    await expect.poll(() => page.locator("pre", { hasText: "curl" }).count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: "Settings → API keys" }).getAttribute("href")).toBe(
      "/settings?tab=api-keys",
    );
    expect(await page.getByRole("link", { name: /dashboard/i }).count()).toBeGreaterThan(0);
    const reference = page.getByTestId("api-reference");
    await expect
      .poll(() => reference.getByText("Posts, newest first, a page at a time").count(), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    await expect.poll(() => reference.getByText("Start a backup sync").count()).toBeGreaterThan(0);
    // Keepsake's reference only: none of the renderer vendor's own controls or credit.
    const vendor = await page.evaluate(() =>
      (document.body.textContent ?? "").match(/Generate MCP|Connect MCP|Ask AI|Powered by/gi),
    );
    expect(vendor).toBeNull();
    expect(await page.locator('a[href*="scalar.com"]').count()).toBe(0);
    expect(errors.filter((e) => /Content Security Policy|Refused/i.test(e))).toEqual([]);
    expect(offsiteRequests(page)).toEqual([]);
  });
});

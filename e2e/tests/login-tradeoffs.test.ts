import type { Browser } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  allowInstagram,
  connectInstagram,
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

const WAIT = { timeout: 20_000, interval: 200 };

/**
 * Issue 36: what each login gives is said where the choice is made and on each account, and
 * Keepsake asks before it leaves for a re-consent, then says on return what changed.
 */
describe("the trade-offs of each login, up front", () => {
  it("a free user sees what each login gives before connecting, and on the connected account", async () => {
    const { page } = await registerNewUser(browser, ks, "tradeoffs");
    await openSettings(page, ks);
    const instagram = page.getByRole("list", { name: "What Instagram Login backs up" });
    const facebook = page.getByRole("list", { name: "What Facebook Login backs up" });
    await instagram.waitFor();
    expect(await instagram.textContent()).toContain("Posts, reels and carousels");
    expect(await instagram.textContent()).toContain(
      "Comments, once you allow the comments permission",
    );
    expect(await instagram.textContent()).toContain("No stories");
    expect(await facebook.textContent()).toContain("Posts, reels, carousels and stories");
    expect(await facebook.textContent()).toContain("No comments permission in this login");
    // Prominent: in the text's own colour, not the grey of fine print.
    const colours = await page.evaluate(() => {
      const rgb = (el: Element | null) => (el ? getComputedStyle(el).color : "");
      return {
        list: rgb(document.querySelector(".login-tradeoffs")),
        text: rgb(document.querySelector(".page-title")),
        muted: rgb(document.querySelector(".muted")),
      };
    });
    expect(colours.list).toBe(colours.text);
    expect(colours.list).not.toBe(colours.muted);

    await page.getByRole("button", { name: "Connect Instagram" }).click();
    await allowInstagram(page, "lumen.studio");
    await page.waitForURL(`${ks.url}/dashboard`);
    await openSettings(page, ks);
    const row = page.getByRole("listitem", { name: "@lumen.studio" });
    await expect
      .poll(() => row.getByTestId("account-login").textContent(), WAIT)
      .toContain("Instagram Login: posts, reels, carousels, and comments once allowed. No stories");
    await page.context().close();
  });

  it("the accounts panel's Add Account choices and cards say the same", async () => {
    const { page, email } = await registerNewUser(browser, ks, "tradeoffspro");
    await seed(ks, "setUser", { email, tier: "pro" });
    await seed(ks, "accountWithBackups", {
      email,
      instagramUserId: "17841400000000888",
      username: "card.studio",
      postPrefix: "card-post-",
      caption: "card",
      backups: [{ status: "completed" }],
    });
    await page.reload();
    const panel = page.locator(".accounts-panel");
    const card = panel.getByRole("article", { name: "@card.studio" });
    await expect
      .poll(() => card.getByTestId("account-login").textContent(), WAIT)
      .toContain("No stories");
    await panel.getByRole("button", { name: "Add Account" }).click();
    expect(
      await panel.getByRole("list", { name: "What Facebook Login backs up" }).textContent(),
    ).toContain("Posts, reels, carousels and stories");
    expect(
      await panel.getByRole("list", { name: "What Instagram Login backs up" }).textContent(),
    ).toContain("No stories");
    await page.context().close();
  });

  it("Also keep comments asks before leaving for Instagram; Cancel changes nothing", async () => {
    const { page } = await registerNewUser(browser, ks, "askfirst");
    await connectInstagram(page, ks, "maya.creates");
    await openSettings(page, ks);
    const toggle = page.getByRole("checkbox", { name: "Also keep comments of @maya.creates" });
    await toggle.click();
    const dialog = page.getByRole("dialog", { name: "Keep the comments of @maya.creates?" });
    expect(await dialog.textContent()).toContain(
      "Reading comments needs Instagram's comments permission",
    );
    expect(await dialog.textContent()).toContain("You'll go to Instagram to allow it");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => dialog.count(), WAIT).toBe(0);
    expect(page.url()).toBe(`${ks.url}/settings`);
    expect(await toggle.isChecked()).toBe(false);
    // Nothing was asked of the server: still off after a reload.
    await page.reload();
    await expect.poll(() => toggle.count(), WAIT).toBe(1);
    expect(await toggle.isChecked()).toBe(false);

    // Continue: Instagram's consent, and back with what changed.
    await toggle.click();
    await dialog.getByRole("button", { name: "Continue to Instagram" }).click();
    await allowInstagram(page, "maya.creates");
    await page.waitForURL(`${ks.url}/dashboard`);
    await expect
      .poll(() => toast(page, "Comments of @maya.creates are now kept").count(), WAIT)
      .toBe(1);
    expect(await toast(page, "Instagram account connected successfully!").count()).toBe(0);
    await openSettings(page, ks);
    await expect.poll(() => toggle.isChecked(), WAIT).toBe(true);
    await page.context().close();
  });
});

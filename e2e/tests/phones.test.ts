import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newPage } from "../support/browser.ts";
import { allowInstagram, registerNewUser, seed } from "../support/flows.ts";
import { openInApp } from "../support/in-app.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { PHONE, phoneProblems, settled } from "../support/phone-check.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 20_000, interval: 200 };
/** A walk visits dozens of screens; on a busy shared machine that takes minutes. */
const WALK_TIMEOUT = 300_000;

/**
 * Issue 36: every page and dialog is usable on a 375 px phone. Each test walks the screens one
 * kind of user sees, opens their panels and dialogs, and collects what `phoneProblems` finds
 * (phone-check.ts): something past the screen's edge, a page that scrolls sideways, a control
 * covered by another element, badges laid over one another. The walk reports every problem
 * at once.
 */
const PUBLIC_ROUTES = [
  "/",
  "/pricing",
  "/login",
  "/register",
  "/forgot-password",
  "/reset-password?token=not-a-real-token",
  "/verify-email?token=not-a-real-token",
  "/unsubscribe?token=not-a-real-token",
  "/status/confirm?token=not-a-real-token",
  "/privacy",
  "/terms",
  "/help",
  "/contact",
  "/status",
  "/docs",
  "/cookies",
  "/security",
  "/about",
  "/blog",
  "/careers",
  "/press",
];

const SETTINGS_TABS = [
  "connections",
  "subscription",
  "profile",
  "notifications",
  "api-keys",
  "import",
];

/** A walk at the phone's width that remembers what it found. */
function walk(page: Page) {
  const problems: string[] = [];
  const check = async (where: string, scope?: string) => {
    problems.push(...(await phoneProblems(page, where, scope)));
    // PHONE_SHOTS=<folder>: a screenshot of each state checked, to look at.
    const shots = process.env.PHONE_SHOTS;
    if (shots) {
      const file = `${where.replace(/[^a-z0-9]+/gi, "_").slice(0, 80)}.png`;
      await page.screenshot({ path: `${shots}/${file}`, fullPage: !scope });
    }
  };
  return {
    problems,
    check,
    /** Opens `path` (in the app once it runs) and checks it, then its open menu. */
    async visit(path: string, menu = false) {
      await openInApp(page, ks.url, path);
      await settled(page);
      await check(path);
      if (!menu) return;
      await page.getByRole("button", { name: "Open menu" }).click();
      await check(`${path} (menu open)`, ".site-header");
      await page.getByRole("button", { name: "Close menu" }).click();
    },
  };
}

/** Settings → Connect Instagram → the sandbox consent page → back on the dashboard. */
async function connectOnPhone(page: Page, username: string) {
  await page.goto(`${ks.url}/settings`);
  await page.getByRole("button", { name: "Connect Instagram" }).click();
  await allowInstagram(page, username);
  await page.waitForURL(`${ks.url}/dashboard`);
}

async function phone(page: Page): Promise<Page> {
  await page.setViewportSize(PHONE);
  return page;
}

async function signedInPhone(prefix: string): Promise<{ page: Page; email: string }> {
  const { page, email } = await registerNewUser(browser, ks, prefix);
  await phone(page);
  return { page, email };
}

describe("every page and dialog at 375 px", () => {
  it("the check itself finds a page too wide, a control past the edge, and one covered, also by a sticky header", async () => {
    const page = await newPage(browser);
    await page.setViewportSize(PHONE);
    await page.setContent(`<body style="margin:0">
      <header style="position:sticky;top:0;height:68px;background:#fff;z-index:5">Header</header>
      <div style="height:1200px"></div>
      <button>Under the header</button>
      <button style="margin-left:400px">Past the edge</button>
      <div style="position:relative"><button>Hidden</button>
        <div style="position:absolute;inset:0;background:#eee">cover</div></div>
      <button>Fine</button><div style="height:1200px"></div>
      <script>document.querySelector("button").scrollIntoView = function () {
        window.scrollTo(0, this.offsetTop - 10);
      };</script></body>`);
    const found = await phoneProblems(page, "guard");
    expect(found.some((p) => p.includes("scrolls sideways"))).toBe(true);
    expect(found.some((p) => p.includes('"Past the edge" is past the screen'))).toBe(true);
    expect(found).toContain('guard: <button> "Hidden" is covered by <div> "cover"');
    expect(found).toContain('guard: <button> "Under the header" is covered by <header> "Header"');
    expect(found.join("\n")).not.toContain('"Fine"');
  });

  it("scrolls smoothly only for those who have not asked for less motion", async () => {
    // An `html { scroll-behavior: smooth }` once outweighed the reduced-motion rule, so every
    // scroll still animated (and the check above measured pages mid-scroll).
    const behaviour = async (reducedMotion: "reduce" | "no-preference") => {
      const context = await browser.newContext({ reducedMotion });
      const page = await context.newPage();
      await page.goto(`${ks.url}/login`);
      const value = await page.evaluate(
        () => getComputedStyle(document.documentElement).scrollBehavior,
      );
      await context.close();
      return value;
    };
    expect(await behaviour("reduce")).toBe("auto");
    expect(await behaviour("no-preference")).toBe("smooth");
  });

  it(
    "a visitor: every public route, the open menu, the pricing toggle",
    async () => {
      const page = await phone(await newPage(browser));
      const w = walk(page);
      for (const path of PUBLIC_ROUTES) await w.visit(path, path === "/" || path === "/pricing");
      await page.goto(`${ks.url}/pricing`);
      await settled(page);
      await page.getByText("Annual", { exact: false }).first().click();
      await w.check("/pricing (annual)");
      expect(w.problems).toEqual([]);
    },
    WALK_TIMEOUT,
  );

  it(
    "a free user: dashboard, Settings tabs and dialogs, Backups, the bell and its alert",
    async () => {
      const { page, email } = await signedInPhone("phonefree");
      const w = walk(page);
      await w.visit("/dashboard", true);
      await w.visit("/settings"); // the two logins, each with what it gives
      await connectOnPhone(page, "maya.creates");
      await settled(page);
      await w.check("/dashboard (Instagram connected)");
      for (const tab of SETTINGS_TABS) await w.visit(`/settings?tab=${tab}`);
      await w.visit("/backups");

      await page.goto(`${ks.url}/settings`);
      await page.getByRole("button", { name: "Connect Google Drive" }).click();
      await page.getByRole("dialog").waitFor();
      await w.check("Drive notice");
      await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("button", { name: "Disconnect @maya.creates" }).click();
      await page.getByRole("dialog").waitFor();
      await w.check("disconnect confirmation");
      await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
      await page.getByRole("checkbox", { name: "Also keep comments of @maya.creates" }).click();
      await page.getByRole("dialog").waitFor();
      await w.check("comments consent");
      await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

      // The bell's alert and its Reconnect link.
      await seed(ks, "notification", {
        email,
        key: `phone-${email}`,
        title: "Reconnect Google Drive: your backups have stopped",
        body: "Google no longer lets Keepsake save to your Drive. Reconnect it to resume your backups.",
        action: ["Reconnect", "/settings?tab=connections"],
      });
      await page.goto(`${ks.url}/dashboard`);
      await settled(page);
      // The bell and its count show beside the menu button, without opening the menu.
      await expect.poll(() => page.getByTestId("notification-count").isVisible(), WAIT).toBe(true);
      await page.getByTestId("notification-bell").click();
      const panel = page.getByRole("dialog", { name: "Notifications" });
      await expect.poll(() => panel.getByRole("link", { name: "Reconnect" }).count(), WAIT).toBe(1);
      await w.check("bell panel", ".bell-panel");
      expect(w.problems).toEqual([]);
      await panel.getByRole("link", { name: "Reconnect" }).click();
      await page.waitForURL(`${ks.url}/settings?tab=connections`);
      expect(w.problems).toEqual([]);
    },
    WALK_TIMEOUT,
  );

  it(
    "a Pro user with accounts and posts: accounts panel, tiles, video, details, Backups",
    async () => {
      const { page, email } = await signedInPhone("phonepro");
      await seed(ks, "setUser", { email, tier: "pro" });
      await seed(ks, "accountWithBackups", {
        email,
        instagramUserId: "17841400000000777",
        username: "phone.studio",
        postPrefix: "phone-post-",
        caption: "A post worth keeping on a phone, with a caption long enough to wrap",
        backups: [
          { status: "completed", mediaType: "VIDEO" },
          { status: "completed" },
          { status: "failed", errorMessage: "Drive is full", mediaType: "CAROUSEL_ALBUM" },
          { status: "completed", mediaType: "VIDEO", gone: true },
          { status: "completed", gone: true },
          { status: "completed" },
        ],
      });
      const w = walk(page);
      await w.visit("/dashboard", true);
      const panel = page.locator(".accounts-panel");
      await expect.poll(() => page.getByTestId("post-tile").count(), WAIT).toBe(6);
      await w.check("/dashboard (Pro, posts)");
      await panel.getByRole("button", { name: "Add Account" }).click();
      await w.check("/dashboard (Add Account open)");
      await panel.getByRole("button", { name: "Disconnect @phone.studio" }).click();
      await page.getByRole("dialog").waitFor();
      await w.check("disconnect confirmation (accounts panel)");
      await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

      await page
        .getByRole("button", { name: /^Play video/ })
        .first()
        .click();
      await page.getByRole("dialog").waitFor();
      await w.check("video player");
      await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
      await page
        .getByRole("button", { name: /^Details of the post from/ })
        .first()
        .click();
      await page.getByRole("dialog").waitFor();
      await settled(page);
      await w.check("post details");
      await page.keyboard.press("Escape");

      await w.visit("/backups");
      await page
        .getByRole("button", { name: /failed/i })
        .first()
        .click();
      await w.check("/backups (failed)");
      for (const tab of SETTINGS_TABS) await w.visit(`/settings?tab=${tab}`);
      await page.goto(`${ks.url}/settings`);
      await page
        .getByRole("region", { name: "Instagram", exact: true })
        .getByRole("button", { name: "Add Account" })
        .click();
      await w.check("/settings (Add Account open)");
      expect(w.problems).toEqual([]);
    },
    WALK_TIMEOUT,
  );

  it(
    "an administrator: the admin tabs",
    async () => {
      const { page, email } = await signedInPhone("phoneadmin");
      await seed(ks, "setUser", { email, isAdmin: true });
      const w = walk(page);
      for (const tab of ["users", "inbox", "mail"]) await w.visit(`/admin?tab=${tab}`);
      await w.visit("/billing/return?tier=pro");
      expect(w.problems).toEqual([]);
    },
    WALK_TIMEOUT,
  );
});

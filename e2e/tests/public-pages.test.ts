import { createRequire } from "node:module";
import type { StatusResponse } from "@keepsake/contracts";
import type { Browser, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { keepForLaterTests, newPage } from "../support/browser.ts";
import {
  connectDrive,
  connectInstagram,
  registerInBrowser,
  registerNewUser,
  sandboxControl,
  seed,
} from "../support/flows.ts";
import { openInApp } from "../support/in-app.ts";
import type { RunningKeepsake } from "../support/keepsake.ts";
import { keepsakeSuite } from "../support/suite.ts";

let ks: RunningKeepsake;
let browser: Browser;
keepsakeSuite((s) => ({ ks, browser } = s));

const WAIT = { timeout: 60_000, interval: 500 };

/** axe-core, from npm, evaluated in the page (page.evaluate is not subject to the CSP). */
const AXE_SOURCE: string = createRequire(import.meta.url)("axe-core").source;

const PUBLIC_PAGES = [
  "/",
  "/pricing",
  "/login",
  "/register",
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

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

async function seriousViolations(page: Page): Promise<string[]> {
  // Once per document: the pages after the first are opened in the app.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is a global once its source ran
    const axe = (window as any).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations as AxeViolation[];
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`,
    );
}

async function status(): Promise<StatusResponse> {
  return (await (await fetch(`${ks.url}/api/status`)).json()) as StatusResponse;
}

describe("/status from live health data", () => {
  it("shows every component operational, then Google Drive degraded while the sandbox injects Drive errors", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/status`);
    await expect.poll(() => page.locator("[data-component]").count(), WAIT).toBe(5);
    // The worker reports at start, so background jobs are up from the first minute.
    await expect
      .poll(async () => (await page.locator('[data-component="jobs"]').textContent()) ?? "")
      .toContain("Operational");
    expect(await page.getByText("No recent incidents").count()).toBe(1);

    const user = await registerInBrowser(browser, ks, {
      full_name: "Status Tester",
      email: "status.tester@example.com",
      password: "Status5!xy",
    });
    await connectInstagram(user, ks, "maya.creates");
    // The first backup starts once Drive is connected; its first uploads meet Drive errors.
    await sandboxControl(ks, "/faults", {
      endpoint: "drive.upload",
      error: "drive:backendError",
      count: 10,
    });
    await connectDrive(user, ks, "maya.chen@example.com");
    await expect
      .poll(async () => (await status()).components.find((c) => c.id === "google")?.status, WAIT)
      .toBe("degraded");

    await page.getByRole("button", { name: "Refresh" }).click();
    const drive = page.locator('[data-component="google"]');
    await expect.poll(() => drive.textContent(), WAIT).toContain("Degraded");
    expect(await drive.textContent()).toMatch(/\d+ of \d+ calls failed in the last 15 minutes/);
    expect(await page.getByText("Some Systems Degraded").count()).toBe(1);

    await page.locator("#status-email").fill("Watcher@Example.com");
    await page.getByRole("button", { name: "Subscribe" }).click();
    // Double opt-in: the answer asks the subscriber to confirm from the mail.
    await page
      .getByRole("status")
      .getByText("we've sent a confirmation link to watcher@example.com")
      .waitFor();
    await user.context().close();
    await page.context().close();
  });
});

/** The signed-in screens, seen by an agency admin with an Instagram account and Drive connected. */
const SIGNED_IN_PAGES = [
  "/dashboard",
  "/backups",
  "/settings",
  "/settings?tab=subscription",
  "/settings?tab=profile",
  "/settings?tab=api-keys",
  "/billing/return?tier=pro",
  "/admin",
  "/admin?tab=inbox",
];

let signedIn: Page | undefined;
/** One admin with content, made once for both widths. */
async function signedInPage(): Promise<Page> {
  if (signedIn) return signedIn;
  const { page, email } = await registerNewUser(browser, ks, "a11y");
  await connectInstagram(page, ks, "lumen.studio");
  await connectDrive(page, ks, "jordan.lee@example.com");
  await seed(ks, "setUser", { email, isAdmin: true, tier: "agency" });
  signedIn = keepForLaterTests(page);
  return page;
}

/** What a page fails of the quality bar: one h1, a title, no sideways scroll, no serious axe. */
async function qualityProblems(page: Page, path: string): Promise<string[]> {
  // Data-driven pages settle first (the status page's components, the pricing plans).
  await openInApp(page, ks.url, path);
  const found: string[] = [];
  const h1s = await page.locator("h1").count();
  if (h1s !== 1) found.push(`${h1s} h1 elements`);
  const title = await page.title();
  if (!/Keepsake/.test(title)) found.push(`title "${title}"`);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  if (overflow > 1) {
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .slice(0, 8)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    );
    found.push(`${overflow} px wider than the viewport (${wide.join(", ")})`);
  }
  found.push(...(await seriousViolations(page)));
  return found;
}

describe("every page", () => {
  for (const width of [375, 1280]) {
    it(`public: one h1, a title, no sideways scrolling and no serious axe violations at ${width} px`, async () => {
      const page = await newPage(browser);
      await page.setViewportSize({ width, height: 800 });
      const problems: Record<string, string[]> = {};
      for (const path of PUBLIC_PAGES) {
        const found = await qualityProblems(page, path);
        if (found.length > 0) problems[path] = found;
      }
      expect(problems).toEqual({});
      await page.context().close();
    });

    it(`signed in: one h1, a title, no sideways scrolling and no serious axe violations at ${width} px`, async () => {
      const page = await signedInPage();
      await page.setViewportSize({ width, height: 800 });
      const problems: Record<string, string[]> = {};
      for (const path of SIGNED_IN_PAGES) {
        const found = await qualityProblems(page, path);
        if (found.length > 0) problems[path] = found;
      }
      expect(problems).toEqual({});
    });
  }
});

describe("/help and /press", () => {
  it("filters the FAQ as you type, with a no-match state", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/help`);
    const questions = page.locator(".faq-item summary");
    await expect.poll(() => questions.count()).toBe(6);
    await page.getByLabel("Search for help").fill("often");
    await expect
      .poll(() => questions.allTextContents())
      .toEqual(["How often are my posts backed up?"]);
    await questions.first().click();
    expect(await page.locator(".faq-item p").first().textContent()).toContain("every 10 minutes");
    await page.getByLabel("Search for help").fill("quantum entanglement");
    await expect.poll(() => questions.count()).toBe(0);
    expect(await page.getByText(/No answers match/).count()).toBe(1);
    await page.getByLabel("Search for help").fill("");
    await expect.poll(() => questions.count()).toBe(6);

    expect(await page.getByRole("link", { name: "Send Email" }).getAttribute("href")).toBe(
      "mailto:support@keepsake.app",
    );
    await page.getByRole("link", { name: "View Docs" }).click();
    await page.waitForURL(`${ks.url}/docs`);
    await page.goBack();
    await page.getByRole("link", { name: "Open Contact Form" }).click();
    await page.waitForURL(`${ks.url}/contact`);
    await page.context().close();
  });

  it("downloads a press kit with the logo as SVG and PNG and a one-page fact sheet", async () => {
    const page = await newPage(browser);
    await page.goto(`${ks.url}/press`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download Press Kit" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("keepsake-press-kit.zip");
    const zip = await (await fetch(`${ks.url}/press-kit/keepsake-press-kit.zip`)).arrayBuffer();
    const text = Buffer.from(zip).toString("latin1");
    for (const name of ["keepsake-logo.svg", "keepsake-logo.png", "keepsake-fact-sheet.pdf"]) {
      expect(text).toContain(name);
      const res = await fetch(`${ks.url}/press-kit/${name}`);
      expect(res.status).toBe(200);
    }
    const png = Buffer.from(
      await (await fetch(`${ks.url}/press-kit/keepsake-logo.png`)).arrayBuffer(),
    );
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    const pdf = Buffer.from(
      await (await fetch(`${ks.url}/press-kit/keepsake-fact-sheet.pdf`)).arrayBuffer(),
    ).toString("latin1");
    expect(pdf.startsWith("%PDF")).toBe(true);
    expect(pdf.match(/\/Type\s*\/Page[^s]/g)).toHaveLength(1);
    expect(await page.getByRole("link", { name: "press@keepsake.app" }).getAttribute("href")).toBe(
      "mailto:press@keepsake.app",
    );
    await page.context().close();
  });
});

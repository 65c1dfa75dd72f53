import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Debian's Chromium headless shell (`apt-get install chromium-headless-shell`) when it is there:
 * the same engine without the desktop browser around it, about 15 % less CPU for the suite.
 * Else the full `/usr/bin/chromium`; `CHROMIUM_PATH` names another.
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  (existsSync("/usr/bin/chromium-headless-shell")
    ? "/usr/bin/chromium-headless-shell"
    : "/usr/bin/chromium");

/**
 * Headless, with nothing that reaches beyond this machine: every request off loopback goes to a
 * proxy that is not there (Chromium never proxies loopback), so it fails at once, and
 * `newPage` records it. Cheaper than intercepting every request through Playwright.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--proxy-server=http://127.0.0.1:9",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Debian's Chromium: the suite's shared one when it runs, else a new one. */
export function launchBrowser(endpoint?: string): Promise<Browser> {
  if (endpoint) return chromium.connect(endpoint);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** A fresh context (no stored token) and page; requests off loopback fail (see CHROMIUM_ARGS). */
export async function newPage(browser: Browser): Promise<Page> {
  // Reduced motion (the app honours it): spinners and shimmers rest instead of redrawing the
  // page every frame in a software-rendered browser shared by every test.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    reducedMotion: "reduce",
  });
  const offsite: string[] = [];
  context.on("requestfailed", (request) => {
    const host = new URL(request.url()).hostname;
    if (host !== "localhost" && host !== "127.0.0.1" && host !== "[::1]")
      offsite.push(request.url());
  });
  opened.add(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  (page as Page & { offsite?: string[] }).offsite = offsite;
  return page;
}

/** Requests the page tried to make to anywhere but this machine. */
export function offsiteRequests(page: Page): string[] {
  return (page as Page & { offsite?: string[] }).offsite ?? [];
}

/** The contexts `newPage` opened during the running test, and those kept for the file's later tests. */
const opened = new Set<BrowserContext>();
const kept = new WeakSet<BrowserContext>();

/** Keeps a page open after its test, for the file's later tests to continue with. */
export function keepForLaterTests<T extends Page>(page: T): T {
  kept.add(page.context());
  return page;
}

/** Called as a test begins: what was opened before it (a file's set-up) is not its to close. */
export function forgetOpenedPages(): void {
  opened.clear();
}

/**
 * Closes what the test opened and did not keep: a page left open (a dashboard polling its sync
 * status, a spinner) would otherwise go on costing the shared browser and Keepsake CPU until
 * the file ends.
 */
export async function closeTestPages(): Promise<void> {
  for (const context of opened) {
    if (!kept.has(context)) await context.close().catch(() => {});
  }
  opened.clear();
}

import type { Page } from "playwright-core";

/**
 * Counts the page's fetches in flight, from before the app's first script: what the in-app
 * navigation below waits on, as `networkidle` does after a load.
 */
const COUNT_FETCHES = `(() => {
  let inFlight = 0;
  const original = window.fetch;
  window.__fetchesInFlight = () => inFlight;
  window.fetch = (...args) => {
    inFlight++;
    return original(...args).finally(() => inFlight--);
  };
})()`;

const counted = new WeakSet<Page>();

/**
 * Opens `path` of the Keepsake at `baseUrl` in `page` as a click on one of the app's links does:
 * the router follows `history.pushState`, so the bundle is not loaded and run again (phones and
 * public-pages side by side: 171 → 125 CPU-s, measured). A page not yet running the app is
 * loaded. Resolves once the route's screen has loaded, it shows an h1, and no fetch has been in
 * flight for 150 ms.
 */
export async function openInApp(page: Page, baseUrl: string, path: string): Promise<void> {
  // The app's router is running (it marks `window` when it patches history); the prerendered
  // landing page runs no router.
  const loaded =
    counted.has(page) &&
    page.url().startsWith(baseUrl) &&
    (await page.evaluate(() => Symbol.for("wouter_v3") in window));
  if (!loaded) {
    if (!counted.has(page)) await page.addInitScript(COUNT_FETCHES);
    counted.add(page);
    await page.goto(`${baseUrl}${path}`);
  } else {
    await page.evaluate((to) => {
      (window as Window & { quietSince?: number }).quietSince = undefined;
      history.pushState(null, "", to);
    }, path);
  }
  await page.waitForFunction(
    () => {
      const w = window as Window & { quietSince?: number; __fetchesInFlight?: () => number };
      const busy =
        !document.querySelector("h1") ||
        !!document.querySelector(".route-loading") ||
        (w.__fetchesInFlight?.() ?? 0) > 0;
      if (busy) {
        w.quietSince = undefined;
        return false;
      }
      w.quietSince ??= performance.now();
      return performance.now() - w.quietSince >= 150;
    },
    undefined,
    { polling: 50, timeout: 20_000 },
  );
}

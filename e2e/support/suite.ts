import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { launchBrowser } from "./browser.ts";
import { type RunningKeepsake, startKeepsake } from "./keepsake.ts";

/**
 * One Keepsake (run as `npm start` runs it) and one Chromium for the test file: started before
 * its first test and handed to `started`, stopped after its last test.
 */
export function keepsakeSuite(started: (s: { ks: RunningKeepsake; browser: Browser }) => void) {
  let running: { ks: RunningKeepsake; browser: Browser } | undefined;
  beforeAll(async () => {
    const [ks, browser] = await Promise.all([startKeepsake(), launchBrowser()]);
    running = { ks, browser };
    started(running);
  });
  afterAll(async () => {
    await running?.browser.close();
    await running?.ks.dispose();
  });
}

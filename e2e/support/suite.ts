import type { Browser } from "playwright-core";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { launchBrowser } from "./browser.ts";
import { type RunningKeepsake, startKeepsake } from "./keepsake.ts";

/**
 * One Keepsake (run as `npm start` runs it) and one Chromium for the test file: started before
 * its first test and handed to `started`, stopped after its last test. When a test fails, what
 * Keepsake wrote during it (warnings and errors) is printed beside the failure.
 */
export function keepsakeSuite(started: (s: { ks: RunningKeepsake; browser: Browser }) => void) {
  let running: { ks: RunningKeepsake; browser: Browser } | undefined;
  beforeAll(async () => {
    const [ks, browser] = await Promise.all([startKeepsake(), launchBrowser()]);
    running = { ks, browser };
    started(running);
  });
  beforeEach((ctx) => {
    const from = running?.ks.output().length ?? 0;
    ctx.onTestFailed(() => {
      const written = running?.ks.output().slice(from).trim();
      console.error(
        `Keepsake's output during "${ctx.task.name}":\n${written ? written.slice(-8000) : "(nothing)"}`,
      );
    });
  });
  afterAll(async () => {
    await running?.browser.close();
    await running?.ks.dispose();
  });
}

import type { Browser } from "playwright-core";
import { afterAll, beforeAll, beforeEach, inject } from "vitest";
import { launchBrowser } from "./browser.ts";
import { attachKeepsake, type RunningKeepsake } from "./keepsake.ts";

/**
 * The suite's one Keepsake (run as `npm start` runs it, started by the global set-up and shared
 * by every file) and a connection to its one Chromium, handed to `started` before the file's
 * first test. Files share the app, so a test makes its own users and undoes any sandbox fault it
 * sets. When a test fails, what Keepsake wrote during it is printed beside the failure.
 */
export function keepsakeSuite(started: (s: { ks: RunningKeepsake; browser: Browser }) => void) {
  let running: { ks: RunningKeepsake; browser: Browser } | undefined;
  beforeAll(async () => {
    const ks = attachKeepsake(inject("keepsake"));
    const browser = await launchBrowser(inject("browserEndpoint"));
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

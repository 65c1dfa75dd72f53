import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, inject } from "vitest";
import { closeTestPages, forgetOpenedPages, launchBrowser } from "./browser.ts";
import { seed } from "./flows.ts";
import { attachKeepsake, type RunningKeepsake } from "./keepsake.ts";

/**
 * Kept between files: the migrations, the status page's components and the workers' heartbeats.
 * Everything else (users and all they own, throttles, inboxes, provider call statistics) is
 * emptied, so each file meets a Keepsake as new as a fresh install.
 */
const KEPT_TABLES = ["schema_migrations", "status_components", "worker_heartbeats"];

/** Empties Keepsake's data and resets the sandbox (demo accounts, Drives, Stripe, faults). */
async function freshState(ks: RunningKeepsake) {
  await seed(ks, "emptyAllBut", { kept: KEPT_TABLES });
  const res = await fetch(`${ks.sandboxUrl}/_control/reset`, { method: "POST" });
  if (!res.ok) throw new Error(`sandbox reset: ${res.status}`);
}

/**
 * The Keepsake of this file's Vitest worker (run as `npm start` runs it, started by the global
 * set-up and shared by the files that worker runs, one at a time, emptied before each) and a connection to its one Chromium, handed to `started`
 * before the file's first test. When a test fails, what Keepsake wrote during it is printed
 * beside the failure.
 */
export function keepsakeSuite(started: (s: { ks: RunningKeepsake; browser: Browser }) => void) {
  let running: { ks: RunningKeepsake; browser: Browser } | undefined;
  beforeAll(async () => {
    // The Keepsake of this file's worker: no other file uses it while this one runs.
    const pool = inject("keepsakes");
    const ks = attachKeepsake(pool[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % pool.length]!);
    await freshState(ks);
    const browser = await launchBrowser(inject("browserEndpoint"));
    running = { ks, browser };
    started(running);
  });
  beforeEach((ctx) => {
    forgetOpenedPages();
    const from = running?.ks.output().length ?? 0;
    ctx.onTestFailed(() => {
      const written = running?.ks.output().slice(from).trim();
      console.error(
        `Keepsake's output during "${ctx.task.name}":\n${written ? written.slice(-8000) : "(nothing)"}`,
      );
    });
  });
  // Each test's pages close when it ends, unless kept for later tests (keepForLaterTests).
  afterEach(() => closeTestPages());
  afterAll(async () => {
    await running?.browser.close();
    await running?.ks.dispose();
  });
}

import { type BrowserServer, chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { ensureWebBuild } from "../../scripts/web-build.ts";
import { CHROMIUM, CHROMIUM_ARGS } from "./browser.ts";
import { type RunningKeepsake, type SharedKeepsake, startKeepsake } from "./keepsake.ts";
import { type Seeder, startSeeder } from "./seeder.ts";
import { E2E_WORKERS } from "./workers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The Keepsakes the end-to-end files share (each run as `npm start` runs it), one per Vitest
     * worker: the file running in worker N (VITEST_POOL_ID) uses the Nth and has it to itself.
     */
    keepsakes: SharedKeepsake[];
    /** The one Chromium every end-to-end file connects to. */
    browserEndpoint: string;
  }
}

/**
 * The end-to-end suite runs against the built SPA, exactly as `npm start` serves it. Booting an
 * app (embedded database, migrations, sandbox) and a browser costs seconds on two cores, so the
 * files share them: one Keepsake per Vitest worker (E2E_WORKERS, vitest.config.ts) and one
 * Chromium for all; a file that restarts or kills Keepsake starts its own.
 */
export default async function setup(project: TestProject) {
  ensureWebBuild();
  const started: { ks: RunningKeepsake; seeder: Seeder; stopSeeder(): Promise<void> }[] = [];
  let server: BrowserServer | undefined;
  try {
    [server] = await Promise.all([
      chromium.launchServer({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        host: "127.0.0.1",
      }),
      ...Array.from({ length: E2E_WORKERS }, async () => {
        const ks = await startKeepsake();
        const { seeder, stop } = await startSeeder(ks.dataDir).catch(async (err) => {
          await ks.dispose();
          throw err;
        });
        started.push({ ks, seeder, stopSeeder: stop });
      }),
    ]);
  } catch (err) {
    await Promise.all(started.map((s) => s.stopSeeder().then(() => s.ks.dispose())));
    await server?.close();
    throw err;
  }
  project.provide(
    "keepsakes",
    started.map((s) => ({ ...s.ks.shared(), seeder: s.seeder })),
  );
  project.provide("browserEndpoint", server.wsEndpoint());
  return async () => {
    await server?.close();
    await Promise.all(started.map((s) => s.stopSeeder().then(() => s.ks.dispose())));
  };
}

import { type BrowserServer, chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { ensureWebBuild } from "../../scripts/web-build.ts";
import { CHROMIUM, CHROMIUM_ARGS } from "./browser.ts";
import { type RunningKeepsake, type SharedKeepsake, startKeepsake } from "./keepsake.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The one Keepsake every end-to-end file shares (run as `npm start` runs it). */
    keepsake: SharedKeepsake;
    /** The one Chromium every end-to-end file connects to. */
    browserEndpoint: string;
  }
}

/**
 * The end-to-end suite runs against the built SPA, exactly as `npm start` serves it. Booting an
 * app (embedded database, migrations, sandbox) and a browser costs seconds on two cores, so one
 * of each serves every file; a file that restarts or kills Keepsake starts its own.
 */
export default async function setup(project: TestProject) {
  ensureWebBuild();
  let ks: RunningKeepsake | undefined;
  let server: BrowserServer | undefined;
  try {
    [ks, server] = await Promise.all([
      startKeepsake(),
      chromium.launchServer({
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        host: "127.0.0.1",
      }),
    ]);
  } catch (err) {
    await ks?.dispose();
    await server?.close();
    throw err;
  }
  project.provide("keepsake", ks.shared());
  project.provide("browserEndpoint", server.wsEndpoint());
  return async () => {
    await server?.close();
    await ks?.dispose();
  };
}

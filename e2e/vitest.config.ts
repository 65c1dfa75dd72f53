import { defineConfig } from "vitest/config";
import { longFirst } from "../scripts/long-first-sequencer.ts";
import { E2E_WORKERS } from "./support/workers.ts";

/** The longest files first (as measured), so the two workers end together. */
const LONG_FIRST = [
  "public-pages",
  "dashboard",
  "connections",
  "destinations",
  "phones",
  "plans",
  "mail",
  "admin",
  "archive",
].map((name) => new RegExp(`/tests/${name}\\.test\\.ts$`));

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["support/global-setup.ts"],
    // Two files at a time by default, each with its own Keepsake (support/global-setup.ts) and a
    // page of the one Chromium: most of an end-to-end test is waiting for jobs and pages.
    fileParallelism: E2E_WORKERS > 1,
    maxWorkers: E2E_WORKERS,
    sequence: { sequencer: longFirst(LONG_FIRST) },
    // A budget, not a goal: on a loaded two-core machine the longest tests (every page under axe
    // at 375 px, an import) took 76 s of the former 90 s; a test that hangs still fails.
    testTimeout: 180_000,
    hookTimeout: 120_000,
    // A page in a real browser on a busy two-core machine can take seconds to settle: poll for
    // it rather than fail on vitest's 1 s default.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["support/global-setup.ts"],
    // One browser and one app process at a time: the machine has two cores.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // A page in a real browser on a busy two-core machine can take seconds to settle: poll for
    // it rather than fail on vitest's 1 s default.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});

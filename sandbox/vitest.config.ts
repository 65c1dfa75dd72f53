import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A worker keeps the modules it loaded from one file to the next (no test changes a
    // module's state): 26 → 11 CPU-s for the suite.
    isolate: false,
  },
});

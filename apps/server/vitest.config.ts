import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

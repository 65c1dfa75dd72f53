import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});

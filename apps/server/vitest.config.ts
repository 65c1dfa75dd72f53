import { configDefaults, defineConfig } from "vitest/config";

// `*.server.test.ts`: tests that need what only a PostgreSQL server has (several sessions at
// once), run when TEST_DATABASE_URL names one.
const serverOnly = process.env.TEST_DATABASE_URL ? [] : ["test/**/*.server.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...serverOnly],
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

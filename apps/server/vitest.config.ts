import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { longFirst } from "../../scripts/long-first-sequencer.ts";

/**
 * Two projects, one run. `embedded` runs every file on embedded PGlite (the default database).
 * When TEST_DATABASE_URL names a PostgreSQL server, `postgres` runs there the files whose
 * outcome can differ between the two: PGlite is the same SQL engine behind one session, so what
 * differs is what several sessions do at once — locks, bursts against limits, the queue and its
 * worker processes, concurrent migrations, the planner on a real server — and the
 * `*.server.test.ts` files, which need a second session. SERVER_SUITE=all runs every file there.
 */
export const DIFFERS_ON_A_SERVER = [
  "test/**/*.server.test.ts",
  "test/migrate.concurrent.test.ts",
  "test/jobs.test.ts",
  "test/backup.workers.test.ts",
  "test/backup.shutdown.test.ts",
  "test/backup.sync.test.ts",
  "test/api.shutdown.test.ts",
  "test/billing-concurrency.test.ts",
  "test/billing-no-transaction.test.ts",
  "test/billing-limits.test.ts",
  "test/sync-start.burst.test.ts",
  "test/counters.test.ts",
  "test/scheduler.test.ts",
  "test/status.test.ts",
  "test/status-mail.test.ts",
  "test/dashboard.scale.test.ts",
  "test/api-v1.test.ts",
  "test/auth.test.ts",
  "test/contact.test.ts",
  "test/api-keys.test.ts",
  "test/input-safety.test.ts",
];

const serverUrl = process.env.TEST_DATABASE_URL ?? "";

/**
 * Files that mostly wait (worker processes killed and taken over after a missed heartbeat, a
 * graceful stop, a whole first backup) go first, longest first, so they overlap the rest instead
 * of ending the run alone.
 */
const LONG_FIRST = [
  /backup\.kill-points\..*\.server\.test\.ts$/,
  /backup\.shutdown\.test\.ts$/,
  /backup\.workers\.test\.ts$/,
  /backup\.sync\.test\.ts$/,
  /mail\.workers\.test\.ts$/,
  /mail\.outbox\.test\.ts$/,
  /alerts\.test\.ts$/,
  /dashboard\.scale\.test\.ts$/,
  /billing-transitions\.test\.ts$/,
  /\.server\.test\.ts$/,
];

export default defineConfig({
  test: {
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files wait on sockets, databases and worker processes far more than they compute, and
    // every embedded database is copied from one migrated template (support/database-template.ts):
    // two files per core took both projects on two cores from 290 s to 204 s (issue 27).
    maxWorkers: Math.max(2, 2 * availableParallelism()),
    sequence: { sequencer: longFirst(LONG_FIRST) },
    projects: [
      {
        extends: true,
        test: {
          name: "embedded",
          globalSetup: ["test/support/database-template.ts"],
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.server.test.ts"],
          env: { TEST_DATABASE_URL: "" },
        },
      },
      ...(serverUrl
        ? [
            {
              extends: true,
              test: {
                name: "postgres",
                include:
                  process.env.SERVER_SUITE === "all" ? ["test/**/*.test.ts"] : DIFFERS_ON_A_SERVER,
                env: { TEST_DATABASE_URL: serverUrl },
              },
            },
          ]
        : []),
    ],
  },
});

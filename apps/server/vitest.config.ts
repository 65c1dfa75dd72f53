import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

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
  "test/billing-limits.test.ts",
  "test/sync-start.burst.test.ts",
  "test/counters.test.ts",
  "test/scheduler.test.ts",
  "test/status.test.ts",
  "test/dashboard.scale.test.ts",
  "test/api-v1.test.ts",
  "test/auth.test.ts",
  "test/contact.test.ts",
  "test/api-keys.test.ts",
  "test/input-safety.test.ts",
];

const serverUrl = process.env.TEST_DATABASE_URL ?? "";

/**
 * Files that mostly wait (worker processes killed and taken over after a missed heartbeat) go
 * first, so they overlap the rest instead of ending the run alone; then vitest's own order.
 */
class WaitersFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (f: TestSpecification) => /\.server\.test\.ts$/.test(f.moduleId);
    return [...sorted.filter(waits), ...sorted.filter((f) => !waits(f))];
  }
}

export default defineConfig({
  test: {
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files wait on sockets, databases and worker processes far more than they compute: one
    // file per core (vitest's default leaves one core idle) took the suites on two cores from
    // 249 s to 150 s (embedded) and from 311 s to 220 s (PostgreSQL server).
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: WaitersFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "embedded",
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

import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { longFirst } from "../../scripts/long-first-sequencer.ts";

/**
 * Every file runs once, on real PostgreSQL: the server of TEST_DATABASE_URL when it is set, else
 * one embedded PostgreSQL started for the run; on either, each file has its own database, copied
 * from one migrated template (support/database-template.ts). Either way several connections and
 * processes run at once, so the tests of locks, claims and limits race for real.
 */

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
  /alerts(\.bell)?\.test\.ts$/,
  /dashboard\.scale\.test\.ts$/,
  /billing-transitions\.test\.ts$/,
  /\.server\.test\.ts$/,
];

export default defineConfig({
  test: {
    setupFiles: ["@keepsake/sandbox/network-guard"],
    globalSetup: ["test/support/database-template.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files wait on sockets, databases and worker processes far more than they compute:
    // two files per core (issue 27).
    maxWorkers: Math.max(2, 2 * availableParallelism()),
    // A worker keeps the modules it loaded from one file to the next: each file builds its own
    // app, database and processes, and no test changes a module's state (process.env, globals,
    // mocks). Loading the server's modules again for each of the 100 files cost a third of the
    // suite's CPU (measured: 501 → 348 CPU-s, 288 → 214 s on two cores).
    isolate: false,
    sequence: { sequencer: longFirst(LONG_FIRST) },
  },
});

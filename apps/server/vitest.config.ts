import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// `*.server.test.ts`: tests that need what only a PostgreSQL server has (several sessions at
// once), run when TEST_DATABASE_URL names one.
const serverOnly = process.env.TEST_DATABASE_URL ? [] : ["test/**/*.server.test.ts"];

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
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...serverOnly],
    setupFiles: ["@keepsake/sandbox/network-guard"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // The files wait on sockets, databases and worker processes far more than they compute: one
    // file per core (vitest's default leaves one core idle) took the suites on two cores from
    // 249 s to 150 s (embedded) and from 311 s to 220 s (PostgreSQL server).
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: WaitersFirst },
  },
});

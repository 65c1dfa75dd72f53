import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { E2E_WORKERS } from "./support/workers.ts";

/**
 * The longest files first (as measured), so the two workers end together: CI runs on a clean
 * clone, without the durations vitest remembers between runs.
 */
const LONG_FIRST = [
  "public-pages",
  "dashboard",
  "connections",
  "plans",
  "mail",
  "admin",
  "archive",
];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONG_FIRST.findIndex((name) => f.moduleId.endsWith(`/tests/${name}.test.ts`));
      return i === -1 ? LONG_FIRST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map((x) => x.f);
  }
}

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["support/global-setup.ts"],
    // Two files at a time by default, each with its own Keepsake (support/global-setup.ts) and a
    // page of the one Chromium: most of an end-to-end test is waiting for jobs and pages.
    fileParallelism: E2E_WORKERS > 1,
    maxWorkers: E2E_WORKERS,
    sequence: { sequencer: LongFirst },
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // A page in a real browser on a busy two-core machine can take seconds to settle: poll for
    // it rather than fail on vitest's 1 s default.
    expect: { poll: { timeout: 15_000, interval: 100 } },
  },
});

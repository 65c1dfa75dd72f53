import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * A Vitest sequencer that runs the files matching `longest` first, in that order, then the rest
 * in Vitest's own order, so parallel workers end together. CI runs on a clean clone, without the
 * durations Vitest remembers between runs, hence an explicit list (measured) per suite.
 */
export function longFirst(longest: readonly RegExp[]) {
  return class LongFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(files);
      const rank = (f: TestSpecification) => {
        const i = longest.findIndex((re) => re.test(f.moduleId));
        return i === -1 ? longest.length : i;
      };
      return sorted
        .map((f, i) => ({ f, i }))
        .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
        .map((x) => x.f);
    }
  };
}

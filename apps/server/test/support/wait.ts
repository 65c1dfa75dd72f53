import { vi } from "vitest";

/**
 * Resolves with `what()`'s value once `ok` accepts it; vi.waitFor polls and fails the test with
 * the last value seen after `timeout` ms.
 */
export function until<T>(
  what: () => Promise<T>,
  ok: (v: T) => boolean,
  timeout = 60_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await what();
      if (!ok(v)) throw new Error(`still waiting: ${JSON.stringify(v)}`);
      return v;
    },
    { timeout, interval: 100 },
  );
}

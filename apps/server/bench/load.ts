/**
 * A fixed-rate (open-loop) HTTP load driver: requests leave on schedule whether or not earlier
 * ones answered, so a slow server shows up as latency instead of a lower request rate. Latency
 * is measured from each request's scheduled time. Bounded: at most `maxInFlight` requests are
 * open; a request that would exceed it is not sent and counts as an error.
 */

export interface LoadResult {
  sent: number;
  ok: number;
  errors: number;
  /** Error kinds and how often they happened ("HTTP 500", "timeout", "dropped", …). */
  errorKinds: Record<string, number>;
  /** Latencies of successful requests, milliseconds, ascending. */
  latencies: number[];
  seconds: number;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  maxInFlight: number;
  timeoutMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const total = Math.round(o.rate * o.seconds);
  const interval = 1000 / o.rate;
  const latencies: number[] = [];
  const errorKinds: Record<string, number> = {};
  const fail = (kind: string) => {
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const t0 = performance.now();

  const one = async (scheduled: number) => {
    inFlight += 1;
    try {
      const res = await fetch(o.url, {
        headers: o.headers,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      await res.arrayBuffer();
      if (res.ok) latencies.push(performance.now() - scheduled);
      else fail(`HTTP ${res.status}`);
    } catch (err) {
      fail((err as Error).name === "TimeoutError" ? "timeout" : (err as Error).message);
    } finally {
      inFlight -= 1;
    }
  };

  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const wait = scheduled - performance.now();
    if (wait >= 1) await sleep(wait);
    if (inFlight >= o.maxInFlight) {
      fail("dropped");
      continue;
    }
    pending.push(one(scheduled));
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  const errors = Object.values(errorKinds).reduce((n, v) => n + v, 0);
  return {
    sent: total,
    ok: latencies.length,
    errors,
    errorKinds,
    latencies,
    seconds: (performance.now() - t0) / 1000,
  };
}

/** The p-th percentile (0–100) of ascending values, nearest rank. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

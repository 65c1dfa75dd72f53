import { isRetryable, retryAfterOf } from "../providers/http-retry.ts";
import type { GraphUsage } from "../providers/instagram/media.client.ts";

/** Tunables of the backup engine; tests shrink the waits, the benchmark the chunk size. */
export interface EngineSettings {
  /** Resumable chunk size; rounded down to a multiple of 256 KiB. */
  chunkBytes: number;
  /** Files up to this size go in one multipart request. */
  multipartMaxBytes: number;
  /** Media per Graph page. */
  pageSize: number;
  /** A sync stops after this many already-known posts in a row (pinned posts come first). */
  knownRunToStop: number;
  /** How long a worker's claim on a backup lasts, and how often it is renewed. */
  leaseMs: number;
  leaseRenewMs: number;
  /** A running sync untouched this long is considered dead. */
  staleSyncMs: number;
  backoff: BackoffPolicy;
  /** Graph usage above this percent slows calls down; at 100 Graph throttles. */
  slowDownAbovePercent: number;
  /** The pause before a call at 99 % usage (scaled linearly from `slowDownAbovePercent`). */
  maxPacingPauseMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts of one call in-process before the job itself is retried by the queue. */
  attempts: number;
  /** A wait longer than this is not slept in-process: the job is deferred instead. */
  maxInlineWaitMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  chunkBytes: 8 * 1024 * 1024,
  multipartMaxBytes: 5 * 1024 * 1024,
  pageSize: 50,
  knownRunToStop: 12,
  leaseMs: 45_000,
  leaseRenewMs: 15_000,
  staleSyncMs: 30 * 60_000,
  backoff: { baseMs: 1000, maxMs: 64_000, attempts: 6, maxInlineWaitMs: 65_000 },
  slowDownAbovePercent: 80,
  maxPacingPauseMs: 30_000,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  random: Math.random,
};

/** Drive's documented backoff: min(2^n s + random ms, 64 s), scaled by `baseMs`. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exp = policy.baseMs * 2 ** attempt;
  return Math.min(exp + Math.floor(random() * policy.baseMs), policy.maxMs);
}

/** The pause before the next Graph call given the last usage headers (0 below the threshold). */
export function pacingDelay(usage: GraphUsage | undefined, s: EngineSettings): number {
  if (!usage) return 0;
  const pct = Math.max(usage.appPercent, usage.accountPercent);
  if (pct < s.slowDownAbovePercent) return 0;
  const span = Math.max(1, 100 - s.slowDownAbovePercent);
  return Math.round(((Math.min(pct, 99) - s.slowDownAbovePercent + 1) / span) * s.maxPacingPauseMs);
}

/** The provider says to wait longer than a worker should sleep: the job is re-queued for later. */
export class DeferError extends Error {
  readonly delayMs: number;
  constructor(delayMs: number, cause: unknown) {
    super(`deferred for ${Math.round(delayMs / 1000)} s`, { cause });
    this.name = "DeferError";
    this.delayMs = delayMs;
  }
}

/**
 * Runs `fn`, retrying throttling, 5xx and network failures with exponential backoff and
 * jitter; honours Retry-After. After `attempts`, or for a wait too long to sleep, it throws
 * (a DeferError for a long wait) so the queue retries the whole job.
 */
export async function withBackoff<T>(
  fn: () => Promise<T>,
  s: Pick<EngineSettings, "backoff" | "sleep" | "random">,
  onRetry?: (err: unknown, waitMs: number) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetryable(err)) throw err;
      const hinted = retryAfterOf(err);
      const wait = hinted ?? backoffDelay(attempt, s.backoff, s.random);
      if (wait > s.backoff.maxInlineWaitMs) throw new DeferError(wait, err);
      if (attempt + 1 >= s.backoff.attempts) throw err;
      onRetry?.(err, wait);
      await s.sleep(wait);
    }
  }
}

/** Per-account Graph usage seen by this process, used to slow down before 100 %. */
export function createGraphPacer(s: EngineSettings, now: () => number = Date.now) {
  const usage = new Map<string, GraphUsage & { at: number }>();
  async function beforeCall(accountKey: string) {
    const u = usage.get(accountKey);
    if (u && u.regainMinutes > 0) {
      const left = u.at + u.regainMinutes * 60_000 - now();
      // Throttled: the whole job waits (rather than a worker sleeping for minutes).
      if (left > 0) throw new DeferError(left, new Error("Graph usage at 100%"));
      usage.delete(accountKey);
      return;
    }
    const wait = pacingDelay(u, s);
    if (wait > 0) await s.sleep(wait);
  }
  return {
    record(accountKey: string, u: GraphUsage) {
      usage.set(accountKey, { ...u, at: now() });
    },
    /** The account's latest usage in percent (the higher of app and account), if seen. */
    latestPercent(accountKey: string): number | null {
      const u = usage.get(accountKey);
      return u ? Math.max(u.appPercent, u.accountPercent) : null;
    },
    /** One Graph call for the account: paced by its usage, retried with backoff. */
    call<T>(accountKey: string, fn: () => Promise<T>): Promise<T> {
      return withBackoff(async () => {
        await beforeCall(accountKey);
        return fn();
      }, s);
    },
  };
}

export type GraphPacer = ReturnType<typeof createGraphPacer>;

import { isRetryable, retryAfterOf } from "./provider-error.ts";

/**
 * Retrying provider calls: exponential backoff with jitter, the provider's Retry-After first,
 * and a deferral (the queue retries the job later) for a wait too long to sleep in-process.
 */

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Attempts of one call in-process before the job itself is retried by the queue. */
  attempts: number;
  /** A wait longer than this is not slept in-process: the job is deferred instead. */
  maxInlineWaitMs: number;
}

/** How a caller retries: the policy, and (for tests) its clock and dice. */
export interface RetrySettings {
  backoff: BackoffPolicy;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/** `sleep` cut short by `signal`: rejects with its reason when it is aborted (or already was). */
export function abortableSleep(
  sleep: (ms: number) => Promise<void>,
  signal?: AbortSignal,
): (ms: number) => Promise<void> {
  if (!signal) return sleep;
  return (ms) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      sleep(ms).then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, reject);
    });
}

/** Drive's documented backoff: min(2^n s + random ms, 64 s), scaled by `baseMs`. */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number): number {
  const exp = policy.baseMs * 2 ** attempt;
  return Math.min(exp + Math.floor(random() * policy.baseMs), policy.maxMs);
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
  s: RetrySettings,
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

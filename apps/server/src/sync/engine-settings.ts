import type { RetrySettings } from "../providers/retry.ts";

/** Tunables of the backup engine; tests shrink the waits, the benchmark the chunk size. */
export interface EngineSettings extends RetrySettings {
  /**
   * Resumable chunk size; rounded down to a multiple of 256 KiB. A download of known length is
   * piped into each chunk request, so the size costs no memory: 64 MiB measured faster than
   * 8 MiB on a 1 GB video (bench:backup, Keepsake / plain copy 1.24 against 1.35).
   */
  chunkBytes: number;
  /** Files up to this size go in one multipart request. */
  multipartMaxBytes: number;
  /**
   * How many buffers of `multipartMaxBytes` a process reads small files of unknown length into
   * (reused, made when first needed; more such uploads at once wait for one). As many as the
   * transfer lanes. Small files of known length are piped and need none.
   */
  smallUploadBuffers: number;
  /**
   * How many media files a worker process moves at once (each a CDN download piped into its
   * upload). More posts than this are in progress (the backup job's concurrency): their claims,
   * records, folders and sidecars go on beside the transfers instead of holding one up.
   */
  transferLanes: number;
  /** Media per Graph page. */
  pageSize: number;
  /** A sync stops after this many already-known posts in a row (pinned posts come first). */
  knownRunToStop: number;
  /** How long a worker's claim on a backup lasts, and how often it is renewed. */
  leaseMs: number;
  leaseRenewMs: number;
  /** A running sync untouched this long is considered dead. */
  staleSyncMs: number;
  /** Graph usage above this percent slows calls down; at 100 Graph throttles. */
  slowDownAbovePercent: number;
  /** The pause before a call at 99 % usage (scaled linearly from `slowDownAbovePercent`). */
  maxPacingPauseMs: number;
}

export const DEFAULT_ENGINE_SETTINGS: EngineSettings = {
  chunkBytes: 64 * 1024 * 1024,
  multipartMaxBytes: 5 * 1024 * 1024,
  smallUploadBuffers: 3,
  transferLanes: 3,
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

import type { Config } from "./config.ts";
import type { Db } from "./db/database.ts";
import type { Clock } from "./lib/clock.ts";
import type { ServiceLog } from "./lib/log.ts";
import type { FetchLike } from "./providers/http.ts";

/**
 * What every area's module (`<area>/<area>.module.ts`) is built from, besides the services of
 * the areas built before it: the composition root hands each the same.
 */
export interface ModuleBase {
  db: Db;
  clock: Clock;
  config: Config;
  /** Where services and jobs report what went wrong outside a request. */
  log?: ServiceLog;
}

/** The providers whose calls the status page counts (status/call-stats.ts: MonitoredProvider). */
export type CountedProvider = "instagram" | "google" | "dropbox" | "microsoft" | "s3";

/** The `fetch` each provider's calls go through, counted for the status page (status area). */
export interface ProviderCalls {
  fetchFor(provider: CountedProvider): FetchLike;
  /** Told the outcome of each streamed upload (Drive's, Dropbox's, OneDrive's: `fetchFor` does not see them). */
  streamedFor(provider: CountedProvider): (failed: boolean) => void;
  /**
   * Told the outcome of each call made through an SDK without `fetch`: S3's `@aws-sdk/client-s3`,
   * whose client counts through `s3CallCounter(record)` (providers/s3/s3-call-counter.ts).
   */
  recordFor(provider: CountedProvider): (failed: boolean) => void;
}

/** `{ log }` when there is one (optional properties are left out, not set to undefined). */
export const logOf = (deps: { log?: ServiceLog | undefined }): { log?: ServiceLog } =>
  deps.log ? { log: deps.log } : {};

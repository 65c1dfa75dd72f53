import type { GraphUsage } from "../providers/instagram/media.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { DeferError, withBackoff } from "../providers/retry.ts";
import type { EngineSettings } from "./engine-settings.ts";

/** The pause before the next Graph call given the last usage headers (0 below the threshold). */
export function pacingDelay(usage: GraphUsage | undefined, s: EngineSettings): number {
  if (!usage) return 0;
  const pct = Math.max(usage.appPercent, usage.accountPercent);
  if (pct < s.slowDownAbovePercent) return 0;
  const span = Math.max(1, 100 - s.slowDownAbovePercent);
  return Math.round(((Math.min(pct, 99) - s.slowDownAbovePercent + 1) / span) * s.maxPacingPauseMs);
}

/** Per-account Graph usage seen by this process, used to slow down before 100 %. */
export function createGraphPacer(s: EngineSettings, now: () => number = Date.now) {
  const usage = new Map<string, GraphUsage & { at: number }>();
  async function beforeCall(accountKey: string) {
    const u = usage.get(accountKey);
    if (u && u.regainMinutes > 0) {
      const left = u.at + u.regainMinutes * 60_000 - now();
      // Throttled: the whole job waits (rather than a worker sleeping for minutes).
      if (left > 0) {
        const limited = new ProviderError("instagram", "throttled", "Graph usage at 100%", {
          retryAfterMs: left,
        });
        throw new DeferError(left, limited);
      }
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

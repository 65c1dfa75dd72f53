import { sql } from "kysely";
import type { CountedProvider } from "../area-module.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { providerCallKind, providerCalls, providerErrors } from "../lib/metrics.ts";
import type { FetchLike } from "../providers/http.ts";

/**
 * The providers the status page judges: Instagram (either Graph host, CDN), Google, and the other
 * backup destinations: Dropbox, Microsoft (Graph's OneDrive and its sign-in) and S3-compatible
 * storage. Each has its component (status.rules.ts); the names are also the metrics' `provider`
 * label, as `ProviderError`s name them.
 */
export type MonitoredProvider = "instagram" | "google" | "dropbox" | "microsoft" | "s3";

// The modules' view of the recorder (area-module.ts) names the same providers.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameProviders: Same<MonitoredProvider, CountedProvider> = true;
void sameProviders;

/** How long counts wait in memory before they are written (one upsert per provider-minute). */
const FLUSH_DELAY_MS = 5000;

/** A provider failing on its side: no answer, a 5xx, or throttling. Refusals of a grant are not. */
const isProviderFailure = (status: number) => status >= 500 || status === 429;

/**
 * Counts every provider call and its failures per minute, in memory, and adds them to
 * provider_call_stats a few seconds later (or on `flush`). Every process records its own
 * calls; the status page reads the sum.
 */
export function createCallRecorder(deps: { db: Db; clock: Clock }) {
  const pending = new Map<
    string,
    { provider: MonitoredProvider; minute: Date; calls: number; errors: number }
  >();
  let timer: ReturnType<typeof setTimeout> | null = null;

  function record(provider: MonitoredProvider, failed: boolean) {
    const t = deps.clock.now().getTime();
    const minute = new Date(t - (t % 60_000));
    const key = `${provider}:${minute.getTime()}`;
    const entry = pending.get(key) ?? { provider, minute, calls: 0, errors: 0 };
    entry.calls += 1;
    if (failed) entry.errors += 1;
    pending.set(key, entry);
    if (!timer) {
      timer = setTimeout(() => void flush().catch(() => {}), FLUSH_DELAY_MS);
      timer.unref?.();
    }
  }

  async function flush() {
    if (timer) clearTimeout(timer);
    timer = null;
    const rows = [...pending.values()];
    pending.clear();
    if (rows.length === 0) return;
    await deps.db
      .insertInto("provider_call_stats")
      .values(rows)
      .onConflict((oc) =>
        oc.columns(["provider", "minute"]).doUpdateSet({
          calls: sql`provider_call_stats.calls + excluded.calls`,
          errors: sql`provider_call_stats.errors + excluded.errors`,
        }),
      )
      .execute();
  }

  return {
    /** `fetch`, counted against `provider`. */
    fetchFor(provider: MonitoredProvider): FetchLike {
      return async (input, init) => {
        const url =
          typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
        const method = init?.method ?? (input instanceof Request ? input.method : "GET");
        const labels = { provider, kind: providerCallKind(url, method) };
        providerCalls.inc(labels);
        try {
          const res = await fetch(input, init);
          const failed = isProviderFailure(res.status);
          record(provider, failed);
          if (failed) providerErrors.inc(labels);
          return res;
        } catch (err) {
          // Our own cancellation is no failure of the provider; a timeout is.
          if (!(err instanceof Error && err.name === "AbortError")) {
            record(provider, true);
            providerErrors.inc(labels);
          }
          throw err;
        }
      };
    },
    /**
     * The outcome of each streamed request to `provider` (Drive's uploads, which do not go
     * through `fetch`: `sendStream`): failed when the provider answered 5xx or 429, or not at all.
     */
    streamedFor(provider: MonitoredProvider): (failed: boolean) => void {
      return (failed) => record(provider, failed);
    },
    /**
     * The outcome of each call to `provider` made neither through `fetch` nor `sendStream`: S3's,
     * through `@aws-sdk/client-s3`, whose client takes it as the `record` of its call counter
     * (providers/s3/s3-call-counter.ts, an SDK middleware that also keeps the metrics).
     */
    recordFor(provider: MonitoredProvider): (failed: boolean) => void {
      return (failed) => record(provider, failed);
    },
    flush,
  };
}

export type CallRecorder = ReturnType<typeof createCallRecorder>;

import { providerCalls, providerErrors } from "../../lib/metrics.ts";

/** What the AWS SDK's failures carry: the error code as `name`, the HTTP status when one came. */
interface SdkFailure {
  name?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Whether a failed SDK call was the store's failure, as the status page counts one (a fetch's:
 * status/call-stats.ts): a 5xx or 429 answer (`SlowDown` is a 503), or no answer at all. A 4xx
 * refusal (keys, a missing object, a refused conditional write) is the caller's, not the
 * store's; our own cancellation (an AbortError) is no failure either.
 */
export function sdkCallFailed(err: unknown): boolean {
  const e = (err ?? {}) as SdkFailure;
  const status = e.$metadata?.httpStatusCode;
  if (typeof status === "number") return status >= 500 || status === 429;
  return e.name !== "AbortError";
}

/**
 * An AWS SDK middleware that counts each HTTP attempt of an S3 client's calls: in the metrics
 * (`keepsake_provider_calls_total{provider="s3",kind="s3.<Operation>"}` and its errors) and,
 * when given, through `record` (the status page's `calls.recordFor("s3")`). Hook it with
 * `sdk.middlewareStack.add(counter.middleware, counter.options)`: it sits inside the SDK's retry
 * step, so every attempt is counted once whatever `maxAttempts` is. Errors pass through as
 * they are; a cancelled call (AbortError) is not counted as an outcome.
 */
export function s3CallCounter(record?: (failed: boolean) => void) {
  return {
    middleware:
      <A, R>(next: (args: A) => Promise<R>, context: { commandName?: string }) =>
      async (args: A): Promise<R> => {
        const labels = {
          provider: "s3",
          kind: `s3.${(context.commandName ?? "other").replace(/Command$/, "")}`,
        };
        providerCalls.inc(labels);
        try {
          const out = await next(args);
          record?.(false);
          return out;
        } catch (err) {
          if (err instanceof Error && err.name === "AbortError") throw err;
          const failed = sdkCallFailed(err);
          if (failed) providerErrors.inc(labels);
          record?.(failed);
          throw err;
        }
      },
    options: { step: "finalizeRequest", priority: "low", name: "keepsakeCallCounter" } as const,
  };
}

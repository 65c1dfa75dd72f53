import { AppError } from "../lib/errors.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { abortableSleep, withBackoff } from "../providers/retry.ts";
import type { EngineSettings } from "../sync/index.ts";

/**
 * One call to a destination with the user's credential: retried with backoff (unless
 * `retry: false`, for calls whose caller re-checks an upload's position itself), and with one
 * credential refresh when the destination says it is bad. Once `signal` is aborted (the worker
 * shuts down) no call starts and no backoff sleeps on: its reason is thrown.
 */
export type DestinationCall<C = string> = <T>(
  fn: (credential: C) => Promise<T>,
  options?: { retry?: boolean },
) => Promise<T>;

/**
 * Builds a destination's caller. `credential(forceRefresh)` answers the user's access token
 * (or settings); an `AppError` from it means the grant is gone for good and becomes
 * `revoked(message)`. A second `token_invalid` after a refresh is `revoked(reconnect)`, after
 * `refused(credential, reconnect)` told the custody (which marks the connection, unless the
 * user reconnected meanwhile).
 */
export function destinationCaller<C = string>(p: {
  credential: (forceRefresh: boolean) => Promise<C>;
  revoked: (message: string) => Error;
  /** What the user reads when the refreshed credential is refused again. */
  reconnect: string;
  /** The refreshed credential was refused too: the connection needs the user. Must not throw. */
  refused?: (credential: C, reason: string) => Promise<void>;
  settings: Pick<EngineSettings, "backoff" | "sleep" | "random">;
  signal?: AbortSignal | undefined;
}): DestinationCall<C> {
  const { signal } = p;
  const retrying = signal
    ? { ...p.settings, sleep: abortableSleep(p.settings.sleep, signal) }
    : p.settings;
  let held: { value: C } | null = null;
  const fresh = async (forceRefresh: boolean) => {
    try {
      held = { value: await p.credential(forceRefresh) };
    } catch (err) {
      if (err instanceof AppError) throw p.revoked(err.message);
      throw err;
    }
    return held.value;
  };
  return async (fn, options = {}) => {
    const run = async () => {
      signal?.throwIfAborted();
      return fn(held ? held.value : await fresh(false));
    };
    const exec = () => (options.retry === false ? run() : withBackoff(run, retrying));
    try {
      return await exec();
    } catch (err) {
      if (!(err instanceof ProviderError && err.kind === "token_invalid")) throw err;
      await fresh(true);
      try {
        return await exec();
      } catch (again) {
        if (again instanceof ProviderError && again.kind === "token_invalid") {
          if (held) await p.refused?.(held.value, p.reconnect);
          throw p.revoked(p.reconnect);
        }
        throw again;
      }
    }
  };
}

import { AppError } from "../../lib/errors.ts";
import { reconnectWords } from "../../providers/failure-words.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import { abortableSleep, withBackoff } from "../../providers/retry.ts";
import type { EngineSettings } from "../../sync/index.ts";
import { DestinationRevokedError } from "../destination.ts";

/** Google refused the grant for good: every backup of the user stops until they reconnect. */
export class GoogleRevokedError extends DestinationRevokedError {
  constructor(message: string) {
    super("google_drive", message);
  }
}

/** The user's Google access token (the connections area refreshes it when asked). */
export interface GoogleTokens {
  googleAccessToken(userId: string, options?: { forceRefresh?: boolean }): Promise<string>;
}

/**
 * One Drive call with the user's access token: retried with backoff (unless `retry: false`,
 * for calls whose caller re-checks the upload's Range itself), and with one token refresh when
 * Google says the token is bad. Once `signal` is aborted (the worker shuts down) no call starts
 * and no backoff sleeps on: its reason is thrown.
 */
export type DriveCall = <T>(
  fn: (token: string) => Promise<T>,
  options?: { retry?: boolean },
) => Promise<T>;

export function driveCallerFor(
  connections: GoogleTokens,
  settings: Pick<EngineSettings, "backoff" | "sleep" | "random">,
  userId: string,
  signal?: AbortSignal,
): DriveCall {
  const retrying = signal
    ? { ...settings, sleep: abortableSleep(settings.sleep, signal) }
    : settings;
  let token: string | null = null;
  const fresh = async (forceRefresh: boolean) => {
    try {
      token = await connections.googleAccessToken(userId, { forceRefresh });
    } catch (err) {
      if (err instanceof AppError) throw new GoogleRevokedError(err.message);
      throw err;
    }
    return token;
  };
  return async (fn, options = {}) => {
    const run = async () => {
      signal?.throwIfAborted();
      return fn(token ?? (await fresh(false)));
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
          throw new GoogleRevokedError(reconnectWords.google);
        }
        throw again;
      }
    }
  };
}

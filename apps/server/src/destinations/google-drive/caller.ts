import { reconnectWords } from "../../providers/failure-words.ts";
import type { EngineSettings } from "../../sync/index.ts";
import { destinationCaller } from "../caller.ts";
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
  return destinationCaller({
    credential: (forceRefresh) => connections.googleAccessToken(userId, { forceRefresh }),
    revoked: (message) => new GoogleRevokedError(message),
    reconnect: reconnectWords.google,
    settings,
    signal,
  });
}

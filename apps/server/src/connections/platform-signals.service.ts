import { randomBytes } from "node:crypto";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import type { GoogleOAuthClient } from "../providers/google/google-oauth.client.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { PlatformSignalsRepository } from "./platform-signals.repository.ts";
import { verifySignedRequest } from "./signed-request.ts";

export type MetaApp = "instagram" | "facebook";

/** The reasons a user reads on the account, the bell and the mail. */
export const SIGNAL_REASONS = {
  instagram:
    "You removed Keepsake in Instagram's settings, so backups of this account stopped. Reconnect it to resume them.",
  facebook:
    "You removed Keepsake in Facebook's settings, so backups of this account stopped. Reconnect it to resume them.",
  googleRevoked:
    "Google told Keepsake that its access to your Drive was revoked. Reconnect Google Drive to resume backups.",
  googleDisabled:
    "Google told Keepsake that your Google account was disabled. Reconnect Google Drive (or another Google account) to resume backups.",
  googleSessions:
    "Google signed your account out everywhere, so Keepsake stopped using its access to your Drive. Reconnect Google Drive to resume backups.",
} as const;

const RISC = "https://schemas.openid.net/secevent";
/** The security events Keepsake acts on, as a revoked grant, with the words for each. */
const GOOGLE_EVENTS: Record<string, string> = {
  [`${RISC}/oauth/event-type/tokens-revoked`]: SIGNAL_REASONS.googleRevoked,
  [`${RISC}/oauth/event-type/token-revoked`]: SIGNAL_REASONS.googleRevoked,
  [`${RISC}/risc/event-type/account-disabled`]: SIGNAL_REASONS.googleDisabled,
  [`${RISC}/risc/event-type/sessions-revoked`]: SIGNAL_REASONS.googleSessions,
};

export interface PlatformSignalsDeps {
  /** The connections repository that reports every connection it marks (alerts). */
  repo: ConnectionsRepository;
  signals: PlatformSignalsRepository;
  clock: Clock;
  appUrl: string;
  /** The app secrets Meta signs its callbacks with (undefined: not configured). */
  metaSecrets: Record<MetaApp, string | undefined>;
  /** The OAuth client id Google's security events are addressed to. */
  googleClientId: string | undefined;
  google: Pick<GoogleOAuthClient, "securityEventKeys">;
  /** Erases one connected account the way the user's own disconnect does. */
  disconnect(userId: string, accountId: string): Promise<unknown>;
}

const invalid = () => new AppError("bad_request", "The signed request is not valid.");

/**
 * What Meta and Google tell Keepsake about its users' grants: Meta's deauthorize and
 * data-deletion callbacks (a `signed_request` signed with the app secret) and Google's
 * Cross-Account Protection security events (a JWT signed by Google).
 */
export function createPlatformSignals(deps: PlatformSignalsDeps) {
  const { repo, signals, clock } = deps;

  function verify(app: MetaApp, signedRequest: unknown) {
    const secret = deps.metaSecrets[app];
    if (!secret) throw new AppError("unavailable", "This Meta app is not configured.");
    const request = verifySignedRequest(signedRequest, secret, clock.now());
    if (!request) throw invalid();
    return request;
  }

  let keys: { at: number; issuer: string; keys: Record<string, unknown>[] } | null = null;
  async function googleKeys(refresh: boolean) {
    if (!keys || refresh || clock.now().getTime() - keys.at > 3_600_000) {
      keys = { at: clock.now().getTime(), ...(await deps.google.securityEventKeys()) };
    }
    return keys;
  }

  return {
    /** The person removed Keepsake in Instagram's or Facebook's settings: their accounts stop. */
    async deauthorize(app: MetaApp, signedRequest: unknown): Promise<{ accounts: number }> {
      const { userId } = verify(app, signedRequest);
      const accounts = await signals.accountsOfPlatformUser(app, userId);
      const now = clock.now();
      for (const a of accounts) {
        if (a.status === "needs_reconnection") continue;
        await repo.updateInstagramAccount(
          a.id,
          { status: "needs_reconnection", status_reason: SIGNAL_REASONS[app] },
          now,
        );
      }
      return { accounts: accounts.length };
    },

    /**
     * The person asked Meta to have Keepsake delete their data: every account of theirs is erased
     * from Keepsake (its posts, backup records, archive), as a disconnect does; the files in the
     * user's own storage are theirs and stay. Answers what Meta shows the person.
     */
    async requestDeletion(app: MetaApp, signedRequest: unknown) {
      const { userId } = verify(app, signedRequest);
      const requestedAt = clock.now();
      const accounts = await signals.accountsOfPlatformUser(app, userId);
      for (const a of accounts) {
        // An account removed meanwhile (the user's own disconnect) is erased already.
        await deps.disconnect(a.user_id, a.id).catch((err: unknown) => {
          if (!(err instanceof AppError && err.kind === "not_found")) throw err;
        });
      }
      const code = randomBytes(9).toString("base64url");
      await signals.recordDeletion({
        confirmation_code: code,
        provider: app,
        accounts_erased: accounts.length,
        requested_at: requestedAt,
        completed_at: clock.now(),
      });
      return {
        url: `${deps.appUrl}/data-deletion?code=${encodeURIComponent(code)}`,
        confirmation_code: code,
      };
    },

    /** What the status URL of a deletion request shows. */
    async deletionStatus(code: string) {
      const row = await signals.findDeletion(code);
      if (!row) throw new AppError("not_found", "No data deletion request has this code.");
      return {
        confirmation_code: row.confirmation_code,
        status: "completed" as const,
        provider: row.provider,
        accounts_erased: row.accounts_erased,
        requested_at: new Date(row.requested_at).toISOString(),
        completed_at: new Date(row.completed_at).toISOString(),
      };
    },

    /**
     * A Cross-Account Protection security event token: verified against Google's keys, issuer
     * and our client id; a revoked grant, a disabled account or revoked sessions leave the Drive
     * connections of that Google account needing reconnection. Answers how many it marked.
     */
    async googleSecurityEvent(token: string): Promise<{ marked: number }> {
      const clientId = deps.googleClientId;
      if (!clientId) throw new AppError("unavailable", "Google is not configured.");
      const { createLocalJWKSet, decodeProtectedHeader, jwtVerify } = await import("jose");
      let kid: string | undefined;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        throw new AppError("bad_request", "The security event token is not valid.");
      }
      let k = await googleKeys(false);
      if (kid && !k.keys.some((key) => key.kid === kid)) k = await googleKeys(true);
      let payload: Record<string, unknown>;
      try {
        const jwks = createLocalJWKSet({ keys: k.keys as never[] });
        ({ payload } = await jwtVerify(token, jwks, {
          issuer: k.issuer,
          audience: clientId,
          currentDate: clock.now(),
          maxTokenAge: "1 day",
          clockTolerance: "5 minutes",
        }));
      } catch {
        throw new AppError("bad_request", "The security event token is not valid.");
      }
      const events = (payload.events ?? {}) as Record<string, { subject?: { sub?: unknown } }>;
      let marked = 0;
      const now = clock.now();
      for (const [type, event] of Object.entries(events)) {
        const reason = GOOGLE_EVENTS[type];
        const sub = event?.subject?.sub;
        if (!reason || typeof sub !== "string") continue;
        for (const userId of await signals.usersOfGoogleSub(sub)) {
          const row = await repo.updateGoogleConnection(
            userId,
            { status: "needs_reconnection", status_reason: reason },
            now,
          );
          if (row) marked++;
        }
      }
      return { marked };
    },
  };
}

export type PlatformSignals = ReturnType<typeof createPlatformSignals>;

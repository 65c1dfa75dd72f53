import { connectionMessages as m, TOKEN_WARNING_WINDOW_MS } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import type { FacebookClient } from "../providers/facebook/facebook.client.ts";
import { tokenRevokedWords } from "../providers/failure-words.ts";
import { type GoogleOAuthClient, grantsDrive } from "../providers/google/google-oauth.client.ts";
import type { InstagramClient } from "../providers/instagram/instagram.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import {
  type ConnectionsLog,
  expiredReason,
  expiresAt,
  instagramHealth,
  profileFields,
  REFRESH_MIN_AGE_MS,
  viaLabel,
} from "./connection-rules.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { GoogleConnectionRow, InstagramAccountRow, InstagramAccountUpdate } from "./tables.ts";

/** A Google access token is refreshed when it has less than this left. */
const GOOGLE_ACCESS_MARGIN_MS = 60_000;

/** What opening an Instagram account's token reads of its row. */
export type InstagramTokenRow = Pick<
  InstagramAccountRow,
  "access_token_encrypted" | "connected_via" | "instagram_user_id"
>;

export interface TokenCustodyDeps {
  repo: ConnectionsRepository;
  clock: Clock;
  /** AES-256-GCM key the tokens are sealed with at rest. */
  encryptionKey: Buffer;
  instagram: Pick<InstagramClient, "refreshLongLived" | "getProfile">;
  facebook: Pick<FacebookClient, "getInstagramProfile" | "revokePermissions">;
  google: Pick<GoogleOAuthClient, "refreshAccessToken" | "revoke">;
  log?: ConnectionsLog;
}

/**
 * Token custody: seals and opens the providers' tokens, hands usable ones to the engines,
 * renews them (Instagram long-lived tokens, Google access tokens) and gives grants back.
 */
export function createTokenCustody(deps: TokenCustodyDeps) {
  const { repo, clock, instagram, facebook, google } = deps;
  const seal = (token: string) => encryptSecret(deps.encryptionKey, token);
  const open = (sealed: string) => decryptSecret(deps.encryptionKey, sealed);
  const openInstagramToken = (a: InstagramTokenRow) => ({
    token: open(a.access_token_encrypted),
    connectedVia: a.connected_via,
    instagramUserId: a.instagram_user_id,
  });

  /** Re-validates one Instagram account with its provider; refreshes the token when due. */
  async function validateInstagram(
    a: InstagramAccountRow,
  ): Promise<{ account: InstagramAccountRow; error: ProviderError | null }> {
    const now = clock.now();
    const expires = a.token_expires_at ? new Date(a.token_expires_at) : null;
    const label = viaLabel(a);
    if (expires && expires.getTime() <= now.getTime()) {
      const reason = expiredReason(label, expires);
      const updated = await repo.updateInstagramAccount(
        a.id,
        { status: "needs_reconnection", status_reason: reason },
        now,
      );
      return {
        account: updated ?? a,
        error: new ProviderError(a.connected_via, "token_invalid", reason),
      };
    }
    try {
      let token = open(a.access_token_encrypted);
      const update: InstagramAccountUpdate = {};
      const due =
        a.connected_via === "instagram" &&
        now.getTime() - new Date(a.token_issued_at).getTime() >= REFRESH_MIN_AGE_MS &&
        expires !== null &&
        expires.getTime() - now.getTime() <= TOKEN_WARNING_WINDOW_MS;
      if (due) {
        const fresh = await instagram.refreshLongLived(token);
        token = fresh.accessToken;
        update.access_token_encrypted = seal(token);
        update.token_issued_at = now;
        update.token_expires_at = expiresAt(now, fresh.expiresIn);
      }
      const profile =
        a.connected_via === "instagram"
          ? await instagram.getProfile(token)
          : await facebook.getInstagramProfile(a.instagram_user_id, token);
      const updated = await repo.updateInstagramAccount(
        a.id,
        {
          ...update,
          ...profileFields(profile),
          status: "active",
          status_reason: null,
          last_validated_at: now,
        },
        now,
      );
      return { account: updated ?? a, error: null };
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.kind === "token_invalid") {
        const updated = await repo.updateInstagramAccount(
          a.id,
          { status: "needs_reconnection", status_reason: tokenRevokedWords(err, label) },
          now,
        );
        return { account: updated ?? a, error: err };
      }
      deps.log?.warn(
        { provider: err.provider, kind: err.kind, code: err.code, accountId: a.id },
        "instagram validation failed",
      );
      return { account: a, error: err };
    }
  }

  /** Exchanges the refresh token for a fresh access token and stores it. */
  async function validateGoogle(
    g: GoogleConnectionRow,
  ): Promise<{ connection: GoogleConnectionRow; accessToken: string | null; error: unknown }> {
    const now = clock.now();
    try {
      const t = await google.refreshAccessToken(open(g.refresh_token_encrypted));
      if (t.scopes.length > 0 && !grantsDrive(t.scopes)) {
        const updated = await repo.updateGoogleConnection(
          g.user_id,
          { status: "needs_reconnection", status_reason: m.drivePermissionRequired },
          now,
        );
        return { connection: updated ?? g, accessToken: null, error: null };
      }
      const updated = await repo.updateGoogleConnection(
        g.user_id,
        {
          access_token_encrypted: seal(t.accessToken),
          access_token_expires_at: expiresAt(now, t.expiresIn ?? 3600),
          ...(t.refreshToken ? { refresh_token_encrypted: seal(t.refreshToken) } : {}),
          ...(t.scopes.length > 0 ? { scopes: t.scopes.join(" ") } : {}),
          status: "active",
          status_reason: null,
          last_validated_at: now,
        },
        now,
      );
      return { connection: updated ?? g, accessToken: t.accessToken, error: null };
    } catch (err) {
      if (err instanceof ProviderError && err.kind === "token_invalid") {
        const updated = await repo.updateGoogleConnection(
          g.user_id,
          {
            status: "needs_reconnection",
            status_reason:
              "Google Drive access was revoked or has expired. Reconnect Google Drive.",
          },
          now,
        );
        return { connection: updated ?? g, accessToken: null, error: err };
      }
      if (err instanceof ProviderError) {
        deps.log?.warn({ provider: "google", kind: err.kind }, "google validation failed");
        return { connection: g, accessToken: null, error: err };
      }
      throw err;
    }
  }

  return {
    /** Seals a token for storage (the OAuth flows store what the providers grant). */
    seal,
    validateInstagram,
    validateGoogle,

    /** A usable Drive access token for the user, refreshed on demand (for backups). */
    async googleAccessToken(
      userId: string,
      options: { forceRefresh?: boolean } = {},
    ): Promise<string> {
      const g = await repo.findGoogleConnection(userId);
      if (!g) throw new AppError("conflict", "Please connect your Google Drive account first");
      if (g.status === "needs_reconnection") {
        throw new AppError("conflict", g.status_reason ?? "Reconnect Google Drive.");
      }
      const now = clock.now().getTime();
      if (
        !options.forceRefresh &&
        g.access_token_encrypted &&
        g.access_token_expires_at &&
        new Date(g.access_token_expires_at).getTime() - now > GOOGLE_ACCESS_MARGIN_MS
      ) {
        return open(g.access_token_encrypted);
      }
      const { connection, accessToken, error } = await validateGoogle(g);
      if (accessToken) return accessToken;
      if (error instanceof ProviderError && error.kind !== "token_invalid") throw error;
      throw new AppError("conflict", connection.status_reason ?? "Reconnect Google Drive.");
    },

    /** The decrypted token of an Instagram account and how to use it (for sync). */
    async instagramAccessToken(accountId: string) {
      const a = await repo.findInstagramAccountById(accountId);
      if (!a) throw new AppError("not_found", "Instagram account not found");
      return {
        ...openInstagramToken(a),
        status: instagramHealth(a, clock.now()).status,
      };
    },

    /** The same from an account row already read with its sealed token (no read of its own). */
    openInstagramToken,

    /**
     * The scheduled refresh: tokens ≥ 24 h old that end within 7 days are renewed; accounts
     * whose token has ended or is refused are marked as needing reconnection.
     */
    async refreshExpiringTokens() {
      const now = clock.now();
      const expired = await repo.markExpired(
        now,
        "The access token expired before it could be renewed. Reconnect the account.",
      );
      const due = await repo.listRefreshable({
        issuedBefore: new Date(now.getTime() - REFRESH_MIN_AGE_MS),
        expiresBefore: new Date(now.getTime() + TOKEN_WARNING_WINDOW_MS),
      });
      let refreshed = 0;
      let failed = 0;
      let dead = expired.length;
      for (const a of due) {
        try {
          const fresh = await instagram.refreshLongLived(open(a.access_token_encrypted));
          await repo.updateInstagramAccount(
            a.id,
            {
              access_token_encrypted: seal(fresh.accessToken),
              token_issued_at: now,
              token_expires_at: expiresAt(now, fresh.expiresIn),
              last_validated_at: now,
            },
            now,
          );
          refreshed += 1;
        } catch (err) {
          if (err instanceof ProviderError && err.kind === "token_invalid") {
            await repo.updateInstagramAccount(
              a.id,
              { status: "needs_reconnection", status_reason: tokenRevokedWords(err, "Instagram") },
              now,
            );
            dead += 1;
          } else {
            failed += 1;
            deps.log?.warn(
              { accountId: a.id, kind: err instanceof ProviderError ? err.kind : "error" },
              "instagram token refresh failed",
            );
          }
        }
      }
      return { refreshed, needs_reconnection: dead, failed };
    },

    /** Revokes the grant at Google (best effort) and forgets the tokens. */
    async disconnectGoogle(userId: string) {
      const g = await repo.findGoogleConnection(userId);
      if (!g) throw new AppError("not_found", "Google Drive is not connected");
      let revoked = false;
      try {
        await google.revoke(open(g.refresh_token_encrypted));
        revoked = true;
      } catch (err) {
        // A token Google no longer knows is as good as revoked; anything else is logged.
        if (err instanceof ProviderError && err.kind === "token_invalid") revoked = true;
        else deps.log?.warn({ provider: "google" }, "google revoke failed");
      }
      await repo.deleteGoogleConnection(userId);
      return {
        message: "Google Drive disconnected. Files already in your Drive stay there.",
        disconnected: 1,
        revoked,
      };
    },

    /**
     * De-authorises Keepsake at Facebook for every person whose Facebook Login connected one of
     * the user's accounts (best effort: a token Facebook already rejects counts as revoked).
     */
    async revokeFacebookGrants(userId: string): Promise<{ revoked: number; failed: number }> {
      const tokens = new Set(
        (await repo.listInstagramAccounts(userId))
          .filter((a) => a.connected_via === "facebook")
          .map((a) => open(a.access_token_encrypted)),
      );
      let revoked = 0;
      let failed = 0;
      for (const token of tokens) {
        try {
          if (await facebook.revokePermissions(token)) revoked++;
          else failed++;
        } catch (err) {
          if (err instanceof ProviderError && err.kind === "token_invalid") revoked++;
          else {
            failed++;
            deps.log?.warn({ provider: "facebook" }, "facebook permission revoke failed");
          }
        }
      }
      return { revoked, failed };
    },
  };
}

export type TokenCustody = ReturnType<typeof createTokenCustody>;

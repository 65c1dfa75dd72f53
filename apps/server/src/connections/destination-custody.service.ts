import { createHash } from "node:crypto";
import { DESTINATION_LABELS } from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import type { DropboxClient } from "../providers/dropbox/dropbox.client.ts";
import type { DropboxOAuthClient } from "../providers/dropbox/dropbox-oauth.client.ts";
import { connectFirstWords, reconnectWords } from "../providers/failure-words.ts";
import type { MicrosoftOAuthClient } from "../providers/microsoft/microsoft-oauth.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import type { S3Settings } from "../providers/s3/s3.client.ts";
import { type ConnectionsLog, expiresAt } from "./connection-rules.ts";
import type {
  ConnectedKind,
  DestinationConnectionsRepository,
} from "./destination-connections.repository.ts";
import type { DestinationConnectionRow } from "./tables.ts";

/** An access token is refreshed when it has less than this left. */
const ACCESS_MARGIN_MS = 60_000;

/** A destination whose grant (or keys) the provider refused, as `onNeedsReconnection` reports it. */
export interface LostDestination {
  kind: ConnectedKind;
  userId: string;
  /** The account's e-mail, or `bucket at host`. */
  label: string;
  /** Why, in the user's words (`status_reason`). */
  reason: string | null;
  /** Identifies the grant: a hash of the sealed credentials (the same grant reports the same). */
  grant: string;
}

export interface DestinationCustodyDeps {
  repo: DestinationConnectionsRepository;
  clock: Clock;
  /** AES-256-GCM key the tokens and keys are sealed with at rest. */
  encryptionKey: Buffer;
  dropboxOAuth: Pick<DropboxOAuthClient, "refreshAccessToken">;
  /** Revoking a Dropbox grant when it is disconnected. */
  dropbox: Pick<DropboxClient, "revoke">;
  microsoft: Pick<MicrosoftOAuthClient, "refreshAccessToken">;
  /** Each time a connection is marked as needing reconnection. Must not throw. */
  onNeedsReconnection?: (lost: LostDestination) => Promise<void>;
  log?: ConnectionsLog;
}

const label = (kind: ConnectedKind) => DESTINATION_LABELS[kind];

/**
 * The custody of the destinations other than Drive (`destination_connections`): Dropbox and
 * OneDrive access tokens, cached sealed with their expiry and refreshed with the refresh token
 * (OneDrive's rotates: the new one is kept); the S3 settings, sealed whole. Implements
 * `DestinationCredentials` (destinations/destination.ts): every refusal the user must act on is
 * an `AppError` in their words.
 */
export function createDestinationCustody(deps: DestinationCustodyDeps) {
  const { repo, clock } = deps;
  const seal = (value: string) => encryptSecret(deps.encryptionKey, value);
  const open = (sealed: string) => decryptSecret(deps.encryptionKey, sealed);

  async function report(row: DestinationConnectionRow) {
    await deps.onNeedsReconnection?.({
      kind: row.kind,
      userId: row.user_id,
      label: row.label,
      reason: row.status_reason,
      grant: createHash("sha256").update(row.credentials_encrypted).digest("hex").slice(0, 16),
    });
  }

  /** Marks the connection; `credentialsWere` leaves a reconnection made meanwhile alone. */
  async function markNeedsReconnection(
    userId: string,
    kind: ConnectedKind,
    reason: string = reconnectWords[kind],
    credentialsWere?: string,
  ): Promise<void> {
    const row = await repo.markNeedsReconnection(
      userId,
      kind,
      reason,
      clock.now(),
      credentialsWere,
    );
    if (row) await report(row);
  }

  /** The stored connection, usable: never connected, or needing reconnection, is an AppError. */
  async function usable(userId: string, kind: ConnectedKind) {
    const row = await repo.find(userId, kind);
    if (!row) throw new AppError("conflict", connectFirstWords[kind]);
    if (row.status === "needs_reconnection")
      throw new AppError("conflict", row.status_reason ?? reconnectWords[kind]);
    return row;
  }

  /** A new access token from the refresh token; a refused grant marks the connection. */
  async function refresh(row: DestinationConnectionRow & { kind: "dropbox" | "onedrive" }) {
    const now = clock.now();
    const refreshToken = open(row.credentials_encrypted);
    try {
      const t =
        row.kind === "dropbox"
          ? await deps.dropboxOAuth.refreshAccessToken(refreshToken)
          : await deps.microsoft.refreshAccessToken(refreshToken);
      // Conditional on the credentials read: a reconnection meanwhile keeps its own tokens.
      await repo.update(
        row.user_id,
        row.kind,
        {
          access_token_encrypted: seal(t.accessToken),
          access_token_expires_at: expiresAt(now, t.expiresIn ?? 3600),
          ...(t.refreshToken && t.refreshToken !== refreshToken
            ? { credentials_encrypted: seal(t.refreshToken) }
            : {}),
        },
        now,
        row.credentials_encrypted,
      );
      return t.accessToken;
    } catch (err) {
      if (err instanceof ProviderError && err.kind === "token_invalid") {
        const reason = reconnectWords[row.kind];
        await markNeedsReconnection(row.user_id, row.kind, reason, row.credentials_encrypted);
        throw new AppError("conflict", reason);
      }
      if (err instanceof ProviderError) {
        deps.log?.warn(
          { provider: err.provider, kind: err.kind, userId: row.user_id },
          `${label(row.kind)} token refresh failed`,
        );
      }
      throw err;
    }
  }

  return {
    /** A Dropbox or OneDrive access token; a new one (refresh token used) when `forceRefresh`. */
    async accessToken(
      userId: string,
      kind: "dropbox" | "onedrive",
      options: { forceRefresh?: boolean } = {},
    ): Promise<string> {
      const row = await usable(userId, kind);
      const expires = row.access_token_expires_at
        ? new Date(row.access_token_expires_at).getTime()
        : 0;
      if (
        !options.forceRefresh &&
        row.access_token_encrypted &&
        expires - clock.now().getTime() > ACCESS_MARGIN_MS
      ) {
        return open(row.access_token_encrypted);
      }
      return refresh({ ...row, kind });
    },

    /** The user's S3-compatible storage, its secret opened. */
    async s3Settings(userId: string): Promise<S3Settings> {
      const row = await usable(userId, "s3");
      return JSON.parse(open(row.credentials_encrypted)) as S3Settings;
    },

    /**
     * The destination refused what Keepsake holds for good (S3: the keys; the adapters' callers
     * use it): marked as needing reconnection, with `reason` or the usual words.
     */
    markNeedsReconnection,

    /**
     * A destination refused `credential` even after it was read again (S3's keys; a Dropbox or
     * OneDrive token just refreshed): marked, unless the connection now holds something else
     * (the user reconnected meanwhile). Never throws: the backup's own failure is what counts.
     */
    async refused(
      userId: string,
      kind: ConnectedKind,
      reason: string,
      credential: string | S3Settings,
    ): Promise<void> {
      try {
        const row = await repo.find(userId, kind);
        if (!row || row.status === "needs_reconnection") return;
        const holds =
          kind === "s3"
            ? open(row.credentials_encrypted)
            : row.access_token_encrypted && open(row.access_token_encrypted);
        const was = typeof credential === "string" ? credential : JSON.stringify(credential);
        if (holds !== was) return;
        await markNeedsReconnection(userId, kind, reason, row.credentials_encrypted);
      } catch {
        deps.log?.warn({ provider: kind, userId }, "marking a refused destination failed");
      }
    },

    /**
     * Forgets a destination: Dropbox's grant is revoked first (best effort; a token Dropbox no
     * longer knows counts as revoked). Microsoft offers no revocation of one app's grant, and
     * S3 keys are the user's: both are only forgotten. Accounts pointing at it keep pointing at
     * it (their backups then ask to connect it first).
     */
    async disconnect(userId: string, kind: ConnectedKind) {
      const row = await repo.find(userId, kind);
      if (!row) throw new AppError("not_found", `${label(kind)} is not connected`);
      let revoked = false;
      if (row.kind === "dropbox") {
        try {
          const fresh =
            row.access_token_encrypted &&
            row.access_token_expires_at &&
            new Date(row.access_token_expires_at).getTime() - clock.now().getTime() >
              ACCESS_MARGIN_MS
              ? open(row.access_token_encrypted)
              : (await deps.dropboxOAuth.refreshAccessToken(open(row.credentials_encrypted)))
                  .accessToken;
          await deps.dropbox.revoke(fresh);
          revoked = true;
        } catch (err) {
          if (err instanceof ProviderError && err.kind === "token_invalid") revoked = true;
          else deps.log?.warn({ provider: "dropbox", userId }, "dropbox revoke failed");
        }
      }
      await repo.remove(userId, kind);
      const where = kind === "s3" ? "the bucket" : `your ${label(kind)}`;
      return {
        message: `${label(kind)} disconnected. Files already in ${where} stay there.`,
        disconnected: 1,
        revoked,
      };
    },

    /** Every destination of a user forgotten (a user deleted): Dropbox grants revoked first. */
    async disconnectAll(userId: string): Promise<{ revoked: number }> {
      let revoked = 0;
      for (const row of await repo.list(userId)) {
        if ((await this.disconnect(userId, row.kind)).revoked) revoked++;
      }
      return { revoked };
    },
  };
}

export type DestinationCustody = ReturnType<typeof createDestinationCustody>;

import { createHash } from "node:crypto";
import {
  type AccountProfilesService,
  createAccountProfilesService,
} from "./account-profiles.service.ts";
import {
  type ConnectionHealthService,
  createConnectionHealthService,
} from "./connection-health.service.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import { createOAuthService, type OAuthService, type OAuthServiceDeps } from "./oauth.service.ts";
import type { PlatformSignalsRepository } from "./platform-signals.repository.ts";
import {
  createPlatformSignals,
  type MetaApp,
  type PlatformSignals,
} from "./platform-signals.service.ts";
import type { InstagramAccountRow } from "./tables.ts";
import { createTokenCustody, type TokenCustody } from "./token-custody.service.ts";

/** The connections area, one part per concern; callers receive the part they use. */
export interface Connections {
  /** Starting and completing a connection (routes). */
  oauth: OAuthService;
  /** Sealed tokens: usable ones for the engines, renewal, revocation (jobs, user deletion). */
  tokens: TokenCustody;
  /** The connected accounts and their profile data (accounts area, auth, sync). */
  profiles: AccountProfilesService;
  /** Status and health of the connections; marks of access that ended (dashboard, engines). */
  health: ConnectionHealthService;
  /** What Meta's callbacks and Google's security events say of the grants (routes). */
  signals: PlatformSignals;
}

/** What the OAuth flows need (the token custody is made here), plus the sealing key. */
export interface ConnectionsDeps extends Omit<OAuthServiceDeps, "tokens"> {
  /** AES-256-GCM key the tokens are sealed with at rest. */
  encryptionKey: Buffer;
  /** Called after Instagram accounts were disconnected: a freed slot resumes a paused account. */
  onDisconnected?: (userId: string, accountLimit: number) => Promise<unknown>;
  /**
   * Called each time a connection is marked as needing reconnection (a provider refused or
   * ended its token), with what identifies that grant: the same grant marked again reports the
   * same `grant`. Must not throw (the notifications area's alert).
   */
  onNeedsReconnection?: (lost: LostConnection) => Promise<void>;
  /** Meta's deletion requests and the lookups of its callbacks and Google's security events. */
  signalsRepo: PlatformSignalsRepository;
  /** The app secrets Meta signs its callbacks with, and the client id Google addresses. */
  metaSecrets: Record<MetaApp, string | undefined>;
  googleClientId: string | undefined;
}

/** A connection the provider ended, as `onNeedsReconnection` reports it. */
export interface LostConnection {
  provider: "instagram" | "google";
  userId: string;
  /** The Instagram account's id, or the user's id for Google. */
  subjectId: string;
  /** "@username" or the Google address. */
  label: string;
  /** Why, as the connection recorded it (`status_reason`); null when it kept no words. */
  reason: string | null;
  /** Identifies the grant: the token's issue time (Instagram), a hash of the sealed refresh token (Google). */
  grant: string;
}

/**
 * The repository, reporting every write that leaves a connection needing reconnection (every
 * path that marks one goes through these three writes).
 */
function watchReconnections(
  repo: ConnectionsRepository,
  report: (lost: LostConnection) => Promise<void>,
): ConnectionsRepository {
  const instagram = (a: InstagramAccountRow) =>
    report({
      provider: "instagram",
      userId: a.user_id,
      subjectId: a.id,
      label: `@${a.username}`,
      reason: a.status_reason,
      grant: new Date(a.token_issued_at).toISOString(),
    });
  return {
    ...repo,
    async updateInstagramAccount(id, update, now) {
      const row = await repo.updateInstagramAccount(id, update, now);
      if (row && update.status === "needs_reconnection") await instagram(row);
      return row;
    },
    async markExpired(now, reason) {
      const rows = await repo.markExpired(now, reason);
      for (const row of rows) await instagram(row);
      return rows;
    },
    async updateGoogleConnection(userId, update, now) {
      const row = await repo.updateGoogleConnection(userId, update, now);
      if (row && update.status === "needs_reconnection") {
        await report({
          provider: "google",
          userId: row.user_id,
          subjectId: row.user_id,
          label: row.google_email,
          reason: row.status_reason,
          grant: createHash("sha256")
            .update(row.refresh_token_encrypted)
            .digest("hex")
            .slice(0, 16),
        });
      }
      return row;
    },
  };
}

/** Wires the four parts of the connections area over one repository. */
export function createConnections(deps: ConnectionsDeps): Connections {
  const { clock } = deps;
  const repo = deps.onNeedsReconnection
    ? watchReconnections(deps.repo, deps.onNeedsReconnection)
    : deps.repo;
  const log = deps.log ? { log: deps.log } : {};
  const tokens = createTokenCustody({
    repo,
    clock,
    encryptionKey: deps.encryptionKey,
    instagram: deps.instagram,
    facebook: deps.facebook,
    google: deps.google,
    ...log,
  });
  const oauth = createOAuthService({
    repo,
    states: deps.states,
    clock,
    tokens,
    appUrl: deps.appUrl,
    instagram: deps.instagram,
    facebook: deps.facebook,
    google: deps.google,
    ...log,
    ...(deps.onConnected ? { onConnected: deps.onConnected } : {}),
    ...(deps.onAccountChosen ? { onAccountChosen: deps.onAccountChosen } : {}),
  });
  const profiles = createAccountProfilesService({
    repo,
    clock,
    tokens,
    ...(deps.onDisconnected ? { onDisconnected: deps.onDisconnected } : {}),
  });
  const health = createConnectionHealthService({ repo, clock, tokens });
  const signals = createPlatformSignals({
    repo,
    signals: deps.signalsRepo,
    clock,
    appUrl: deps.appUrl,
    metaSecrets: deps.metaSecrets,
    googleClientId: deps.googleClientId,
    google: deps.google,
    disconnect: (userId, accountId) => profiles.disconnectInstagram(userId, accountId),
  });
  return { oauth, tokens, profiles, health, signals };
}

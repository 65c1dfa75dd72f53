import {
  type ConnectionHealth,
  type ConnectionState,
  type ConnectionStatus,
  type GoogleConnectionHealth,
  type InstagramConnectionHealth,
  connectionMessages as m,
  type OAuthCallbackResponse,
  type OAuthProvider,
  type OAuthStatus,
  type SubscriptionTier,
  TOKEN_WARNING_WINDOW_MS,
} from "@keepsake/contracts";
import { accountLimit } from "../billing/tier-rules.ts";
import type { GoogleConnectionRow, InstagramAccountRow } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import { decryptSecret, encryptSecret } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import type { FacebookClient } from "../providers/facebook/facebook.client.ts";
import { type GoogleOAuthClient, grantsDrive } from "../providers/google/google-oauth.client.ts";
import type { InstagramClient, InstagramProfile } from "../providers/instagram/instagram.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { ConnectionError } from "./connection-error.ts";
import type { ConnectionsRepository, InstagramAccountUpdate } from "./connections.repository.ts";
import type { OAuthStates } from "./oauth-state.ts";

const DAY_MS = 86_400_000;
/** Instagram refuses to refresh a long-lived token younger than this. */
export const REFRESH_MIN_AGE_MS = DAY_MS;
/** A Google access token is refreshed when it has less than this left. */
const GOOGLE_ACCESS_MARGIN_MS = 60_000;
const PROFESSIONAL_TYPES = new Set(["BUSINESS", "MEDIA_CREATOR", "CREATOR"]);

export interface ConnectionsServiceDeps {
  repo: ConnectionsRepository;
  states: OAuthStates;
  clock: Clock;
  encryptionKey: Buffer;
  /** Keepsake's public origin: redirect URIs are `${appUrl}/api/oauth/<provider>/callback`. */
  appUrl: string;
  instagram: InstagramClient;
  facebook: FacebookClient;
  google: GoogleOAuthClient;
  log?: { warn(obj: object, msg: string): void };
  /**
   * Called once a connection is made: the Instagram accounts just connected, or every account
   * (`undefined`) when Google Drive was. The sync area starts the first backup from here.
   */
  onConnected?: (userId: string, accountIds: string[] | undefined) => Promise<unknown>;
  /** Called after Instagram accounts were disconnected: a freed slot resumes a paused account. */
  onDisconnected?: (userId: string, accountLimit: number) => Promise<unknown>;
}

/** What a provider sent back to the callback. */
export interface CallbackParams {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

const LABEL: Record<OAuthProvider, string> = {
  instagram: "Instagram",
  facebook: "Facebook",
  google: "Google",
};

const day = (d: Date) => d.toISOString().slice(0, 10);
const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
const rank: Record<ConnectionState, number> = { healthy: 0, expiring: 1, needs_reconnection: 2 };
const worst = (states: ConnectionState[]): ConnectionState | null =>
  states.length === 0 ? null : states.reduce((a, b) => (rank[b] > rank[a] ? b : a));

/** The account columns a profile read fills; a profile without a type keeps the stored one. */
const profileFields = (p: InstagramProfile) =>
  ({
    username: p.username,
    display_name: p.name,
    ...(p.accountType ? { account_type: p.accountType } : {}),
    profile_picture_url: p.profilePictureUrl,
    followers_count: p.followersCount,
    follows_count: p.followsCount,
    media_count: p.mediaCount,
  }) satisfies InstagramAccountUpdate;

/** Why Instagram stopped accepting a token (Graph code 190 subcodes), for a person. */
function tokenReason(err: ProviderError, label: string): string {
  if (err.subcode === 460) return `The ${label} password was changed. Reconnect the account.`;
  if (err.subcode === 458) return `Keepsake was removed from the account's apps. Reconnect it.`;
  if (err.subcode === 463) return `The ${label} access token expired. Reconnect the account.`;
  return `${label} no longer accepts Keepsake's access. Reconnect the account.`;
}

/** A provider failure during a callback, as a message a person understands. */
function callbackFailure(err: unknown, provider: OAuthProvider): never {
  if (err instanceof AppError) throw err;
  const label = LABEL[provider];
  if (err instanceof ProviderError) {
    if (err.kind === "oauth" || err.kind === "token_invalid") {
      throw new ConnectionError(
        "bad_request",
        "provider_error",
        `${label} did not accept the authorization. Please try connecting again.`,
      );
    }
    if (err.kind === "permission") {
      throw new ConnectionError(
        "bad_request",
        "provider_error",
        `${label} did not grant the permissions Keepsake needs. Please connect again and allow them.`,
      );
    }
    throw new ConnectionError(
      "upstream",
      "provider_error",
      `${label} is not responding right now. Please try again in a few minutes.`,
    );
  }
  throw err;
}

export function createConnectionsService(deps: ConnectionsServiceDeps) {
  const { repo, states, clock, instagram, facebook, google } = deps;
  const seal = (token: string) => encryptSecret(deps.encryptionKey, token);
  const open = (sealed: string) => decryptSecret(deps.encryptionKey, sealed);
  const redirectUri = (provider: OAuthProvider) => `${deps.appUrl}/api/oauth/${provider}/callback`;
  const expiresAt = (now: Date, seconds: number | null) =>
    seconds === null ? null : new Date(now.getTime() + seconds * 1000);

  /** A failure to start the first sync never fails the connection itself. */
  async function connected(userId: string, accountIds: string[] | undefined) {
    try {
      await deps.onConnected?.(userId, accountIds);
    } catch (err) {
      deps.log?.warn({ userId, err: String(err) }, "first sync after connecting did not start");
    }
  }

  function ensureConfigured(provider: OAuthProvider) {
    const client = { instagram, facebook, google }[provider];
    if (!client.configured) {
      throw new AppError(
        "unavailable",
        m.notConfigured(provider === "google" ? "Google" : LABEL[provider]),
      );
    }
  }

  function instagramHealth(a: InstagramAccountRow, now: Date) {
    const label = a.connected_via === "facebook" ? "Facebook" : "Instagram";
    const expires = a.token_expires_at ? new Date(a.token_expires_at) : null;
    let status: ConnectionState = "healthy";
    let reason: string | null = null;
    if (a.status === "needs_reconnection") {
      status = "needs_reconnection";
      reason = a.status_reason ?? `${label} access ended. Reconnect the account.`;
    } else if (expires && expires.getTime() <= now.getTime()) {
      status = "needs_reconnection";
      reason = `The ${label} access token expired on ${day(expires)}. Reconnect the account.`;
    } else if (expires && expires.getTime() - now.getTime() <= TOKEN_WARNING_WINDOW_MS) {
      status = "expiring";
      reason =
        a.connected_via === "instagram"
          ? `The Instagram access token expires on ${day(expires)}; Keepsake renews it automatically.`
          : `The Facebook access token expires on ${day(expires)}; reconnect via Facebook before then.`;
    }
    return { status, reason };
  }

  function googleHealth(g: GoogleConnectionRow): {
    status: ConnectionState;
    reason: string | null;
  } {
    if (g.status === "needs_reconnection") {
      return {
        status: "needs_reconnection",
        reason: g.status_reason ?? "Google Drive access ended. Reconnect Google Drive.",
      };
    }
    return { status: "healthy", reason: null };
  }

  async function assertCanAddAccount(userId: string) {
    const tier = await repo.userTier(userId);
    if (!tier) throw new AppError("not_found", "User not found");
    const accounts = await repo.listInstagramAccounts(userId);
    const limit = accountLimit(tier);
    const now = clock.now();
    // At the limit a user may still reconnect an account whose access ended.
    const reconnecting = accounts.some(
      (a) => instagramHealth(a, now).status === "needs_reconnection",
    );
    if (accounts.length >= limit && !reconnecting) {
      throw new ConnectionError("forbidden", "account_limit", m.accountLimit(limit, tier));
    }
  }

  /** Stores a connected Instagram account: refreshes it when known, else adds it within the limit. */
  async function saveInstagramAccount(
    userId: string,
    profile: InstagramProfile,
    token: { accessToken: string; expiresAt: Date | null },
    via: { connectedVia: "instagram" | "facebook"; facebookPageId: string | null },
  ): Promise<InstagramAccountRow> {
    const now = clock.now();
    const fields = {
      connected_via: via.connectedVia,
      facebook_page_id: via.facebookPageId,
      ...profileFields(profile),
      account_type: profile.accountType,
      access_token_encrypted: seal(token.accessToken),
      token_issued_at: now,
      token_expires_at: token.expiresAt,
      status: "active" as const,
      status_reason: null,
      last_validated_at: now,
    } satisfies InstagramAccountUpdate;
    return repo.transaction(async (tx) => {
      const tier: SubscriptionTier | undefined = await tx.lockUser(userId);
      if (!tier) throw new AppError("not_found", "User not found");
      const existing = await tx.findByInstagramUserId(profile.userId);
      if (existing && existing.user_id !== userId) {
        throw new ConnectionError("conflict", "account_taken", m.accountTaken);
      }
      if (existing) {
        const updated = await tx.updateInstagramAccount(existing.id, fields, now);
        if (!updated) throw new AppError("conflict", "The account changed; please try again.");
        return updated;
      }
      const count = (await tx.listInstagramAccounts(userId)).length;
      const limit = accountLimit(tier);
      if (count >= limit) {
        throw new ConnectionError("forbidden", "account_limit", m.accountLimit(limit, tier));
      }
      const row = await tx.insertInstagramAccount({
        ...fields,
        user_id: userId,
        instagram_user_id: profile.userId,
        connected_at: now,
        updated_at: now,
      });
      if (!row) throw new ConnectionError("conflict", "account_taken", m.accountTaken);
      return row;
    });
  }

  /** The provider said no (cancel): use up the state if it is ours, and say so plainly. */
  async function cancelled(
    provider: OAuthProvider,
    p: CallbackParams,
    userId?: string,
  ): Promise<never> {
    if (p.state) await states.consume(p.state, provider, userId).catch(() => undefined);
    const message =
      provider === "google"
        ? m.googleCancelled
        : provider === "facebook"
          ? m.facebookCancelled
          : m.instagramCancelled;
    throw new ConnectionError("bad_request", "access_denied", message);
  }

  async function begin(
    provider: OAuthProvider,
    p: CallbackParams,
    userId?: string,
  ): Promise<{ code: string; userId: string }> {
    if (p.error) return cancelled(provider, p, userId);
    if (!p.code || !p.state) {
      throw new ConnectionError("bad_request", "invalid_state", m.stateInvalid);
    }
    const state = await states.consume(p.state, provider, userId);
    return { code: p.code, userId: state.user_id };
  }

  /** Re-validates one Instagram account with its provider; refreshes the token when due. */
  async function validateInstagram(
    a: InstagramAccountRow,
  ): Promise<{ account: InstagramAccountRow; error: ProviderError | null }> {
    const now = clock.now();
    const expires = a.token_expires_at ? new Date(a.token_expires_at) : null;
    const label = a.connected_via === "facebook" ? "Facebook" : "Instagram";
    if (expires && expires.getTime() <= now.getTime()) {
      const reason = `The ${label} access token expired on ${day(expires)}. Reconnect the account.`;
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
          { status: "needs_reconnection", status_reason: tokenReason(err, label) },
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

  async function health(userId: string): Promise<ConnectionHealth> {
    const now = clock.now();
    const accounts = await repo.listInstagramAccounts(userId);
    const g = await repo.findGoogleConnection(userId);
    const ig: InstagramConnectionHealth[] = accounts.map((a) => ({
      account_id: a.id,
      username: a.username,
      connected_via: a.connected_via,
      ...instagramHealth(a, now),
      token_expires_at: iso(a.token_expires_at),
      last_validated_at: iso(a.last_validated_at),
    }));
    const gh: GoogleConnectionHealth | null = g
      ? { email: g.google_email, ...googleHealth(g), last_validated_at: iso(g.last_validated_at) }
      : null;
    return {
      overall: worst([...ig.map((h) => h.status), ...(gh ? [gh.status] : [])]),
      checked_at: now.toISOString(),
      instagram: ig,
      google: gh,
    };
  }

  return {
    instagramHealth,

    async startInstagram(userId: string, accountType: "business" | "personal") {
      ensureConfigured("instagram");
      await assertCanAddAccount(userId);
      const state = await states.issue(userId, "instagram", accountType);
      return { auth_url: instagram.authorizeUrl({ redirectUri: redirectUri("instagram"), state }) };
    },

    async startFacebook(userId: string) {
      ensureConfigured("facebook");
      await assertCanAddAccount(userId);
      const state = await states.issue(userId, "facebook");
      return { auth_url: facebook.dialogUrl({ redirectUri: redirectUri("facebook"), state }) };
    },

    async startGoogle(userId: string) {
      ensureConfigured("google");
      const state = await states.issue(userId, "google");
      return { auth_url: google.authUrl({ redirectUri: redirectUri("google"), state }) };
    },

    /** Instagram Login callback. `callerId` is the signed-in caller of a POST callback. */
    async completeInstagram(p: CallbackParams, callerId?: string): Promise<OAuthCallbackResponse> {
      const { code, userId } = await begin("instagram", p, callerId);
      try {
        const short = await instagram.exchangeCode({ code, redirectUri: redirectUri("instagram") });
        const long = await instagram.exchangeForLongLived(short.accessToken);
        const profile = await instagram.getProfile(long.accessToken);
        const type = profile.accountType?.toUpperCase() ?? null;
        if (type === "PERSONAL") {
          throw new ConnectionError("bad_request", "personal_account", m.personalAccount);
        }
        if (type !== null && !PROFESSIONAL_TYPES.has(type)) {
          throw new ConnectionError("bad_request", "unsupported_account", m.unsupportedAccount);
        }
        const row = await saveInstagramAccount(
          userId,
          profile,
          { accessToken: long.accessToken, expiresAt: expiresAt(clock.now(), long.expiresIn) },
          { connectedVia: "instagram", facebookPageId: null },
        );
        await connected(userId, [row.id]);
        return {
          provider: "instagram",
          redirect_to: "/dashboard?instagram_connected=true",
          instagram_username: row.username,
          google_email: null,
        };
      } catch (err) {
        return callbackFailure(err, "instagram");
      }
    },

    /** Facebook Login callback: every page-linked professional account that fits is connected. */
    async completeFacebook(p: CallbackParams, callerId?: string): Promise<OAuthCallbackResponse> {
      const { code, userId } = await begin("facebook", p, callerId);
      try {
        const short = await facebook.exchangeCode({ code, redirectUri: redirectUri("facebook") });
        const long = await facebook
          .exchangeForLongLived(short.accessToken)
          .catch((err: unknown) => {
            if (err instanceof ProviderError && err.kind !== "token_invalid") return short;
            throw err;
          });
        const pages = await facebook.listPages(long.accessToken);
        const linked = pages.filter((pg) => pg.instagramUserId);
        if (linked.length === 0) {
          throw new ConnectionError(
            "bad_request",
            "facebook_page_required",
            m.facebookPageRequired,
          );
        }
        const saved: InstagramAccountRow[] = [];
        let refused: unknown = null;
        for (const page of linked) {
          const profile = await facebook.getInstagramProfile(
            page.instagramUserId!,
            long.accessToken,
          );
          try {
            saved.push(
              await saveInstagramAccount(
                userId,
                profile,
                {
                  accessToken: long.accessToken,
                  expiresAt: expiresAt(clock.now(), long.expiresIn),
                },
                { connectedVia: "facebook", facebookPageId: page.id },
              ),
            );
          } catch (err) {
            if (!(err instanceof ConnectionError)) throw err;
            refused ??= err;
          }
        }
        if (saved.length === 0) throw refused;
        await connected(
          userId,
          saved.map((a) => a.id),
        );
        return {
          provider: "facebook",
          redirect_to: "/dashboard?instagram_connected=true&via=facebook",
          instagram_username: saved[0]!.username,
          google_email: null,
        };
      } catch (err) {
        return callbackFailure(err, "facebook");
      }
    },

    /** Google callback: only a grant that includes Drive is stored. */
    async completeGoogle(p: CallbackParams, callerId?: string): Promise<OAuthCallbackResponse> {
      const { code, userId } = await begin("google", p, callerId);
      try {
        const t = await google.exchangeCode({ code, redirectUri: redirectUri("google") });
        if (!grantsDrive(t.scopes)) {
          // Nothing is stored; the partial grant is given back.
          await google.revoke(t.refreshToken ?? t.accessToken).catch(() => undefined);
          throw new ConnectionError(
            "bad_request",
            "drive_permission_required",
            m.drivePermissionRequired,
          );
        }
        const info = await google.userinfo(t.accessToken);
        const existing = await repo.findGoogleConnection(userId);
        const refresh = t.refreshToken
          ? seal(t.refreshToken)
          : existing?.google_sub === info.sub
            ? existing.refresh_token_encrypted
            : null;
        if (!refresh) {
          throw new ConnectionError(
            "upstream",
            "provider_error",
            "Google did not grant offline access. Please connect Google Drive again.",
          );
        }
        const now = clock.now();
        const row = await repo.upsertGoogleConnection(
          {
            user_id: userId,
            google_sub: info.sub,
            google_email: info.email,
            scopes: t.scopes.join(" "),
            refresh_token_encrypted: refresh,
            access_token_encrypted: seal(t.accessToken),
            access_token_expires_at: expiresAt(now, t.expiresIn ?? 3600),
            root_folder_id: null,
            status: "active",
            status_reason: null,
            last_validated_at: now,
            connected_at: now,
            updated_at: now,
          },
          now,
        );
        await connected(userId, undefined);
        return {
          provider: "google",
          redirect_to: "/dashboard?google_connected=true",
          instagram_username: null,
          google_email: row.google_email,
        };
      } catch (err) {
        return callbackFailure(err, "google");
      }
    },

    async status(userId: string): Promise<OAuthStatus> {
      const now = clock.now();
      const accounts = await repo.listInstagramAccounts(userId);
      const g = await repo.findGoogleConnection(userId);
      return {
        instagram_connected: accounts.length > 0,
        instagram_username: accounts[0]?.username ?? null,
        google_connected: Boolean(g),
        google_email: g?.google_email ?? null,
        instagram_needs_reconnect: accounts.some(
          (a) => instagramHealth(a, now).status === "needs_reconnection",
        ),
        google_needs_reconnect: g ? googleHealth(g).status === "needs_reconnection" : false,
      };
    },

    health,

    async connectionStatus(userId: string): Promise<ConnectionStatus> {
      const h = await health(userId);
      const igStates = h.instagram.map((a) => a.status);
      const usable = igStates.some((s) => s !== "needs_reconnection");
      const actions: string[] = [];
      if (h.instagram.length === 0) actions.push("Connect your Instagram account");
      for (const a of h.instagram) {
        if (a.status === "needs_reconnection") actions.push(`Reconnect @${a.username}`);
      }
      if (!h.google) actions.push("Connect your Google Drive");
      else if (h.google.status === "needs_reconnection") actions.push("Reconnect Google Drive");
      return {
        ready_for_backup: usable && h.google !== null && h.google.status !== "needs_reconnection",
        instagram: {
          connected: h.instagram.length > 0,
          status: worst(igStates),
          accounts: h.instagram.length,
          needs_reconnection: igStates.filter((s) => s === "needs_reconnection").length,
        },
        google: {
          connected: h.google !== null,
          status: h.google?.status ?? null,
          email: h.google?.email ?? null,
        },
        actions,
      };
    },

    /** Re-validates every connection of the user with its provider now. */
    async refreshConnections(userId: string): Promise<ConnectionHealth> {
      for (const a of await repo.listInstagramAccounts(userId)) await validateInstagram(a);
      const g = await repo.findGoogleConnection(userId);
      if (g) await validateGoogle(g);
      return health(userId);
    },

    /**
     * The user's accounts, with the profiles (and so the media counts) of working accounts
     * last read `maxAgeMs` ago or longer read again. A provider error keeps what is known.
     */
    async refreshStaleProfiles(userId: string, maxAgeMs: number): Promise<InstagramAccountRow[]> {
      const now = clock.now().getTime();
      const out: InstagramAccountRow[] = [];
      for (const a of await repo.listInstagramAccounts(userId)) {
        const seen = a.last_validated_at ? new Date(a.last_validated_at).getTime() : 0;
        const stale = a.status !== "needs_reconnection" && now - seen >= maxAgeMs;
        out.push(stale ? (await validateInstagram(a)).account : a);
      }
      return out;
    },

    /** Fetches the account's profile again (and refreshes its token when due). */
    async refreshProfile(userId: string, accountId: string): Promise<InstagramAccountRow> {
      const a = await repo.findInstagramAccount(userId, accountId);
      if (!a) throw new AppError("not_found", "Instagram account not found");
      const { account, error } = await validateInstagram(a);
      if (error?.kind === "token_invalid") {
        throw new AppError(
          "conflict",
          account.status_reason ?? `Instagram access for @${a.username} ended. Reconnect it.`,
        );
      }
      if (error) {
        throw new AppError(
          "upstream",
          "Instagram is not responding right now. Please try again later.",
        );
      }
      return account;
    },

    listInstagramAccounts: (userId: string) => repo.listInstagramAccounts(userId),

    async disconnectInstagram(userId: string, accountId?: string) {
      const n = await repo.deleteInstagramAccounts(userId, accountId);
      if (n === 0) {
        throw new AppError(
          "not_found",
          accountId ? "Instagram account not found" : "No Instagram account is connected",
        );
      }
      const tier = await repo.userTier(userId);
      if (tier) await deps.onDisconnected?.(userId, accountLimit(tier));
      return {
        message:
          n === 1
            ? "Instagram account disconnected. Files already in your Google Drive stay there."
            : `${n} Instagram accounts disconnected. Files already in your Google Drive stay there.`,
        disconnected: n,
      };
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
        token: open(a.access_token_encrypted),
        connectedVia: a.connected_via,
        instagramUserId: a.instagram_user_id,
        status: instagramHealth(a, clock.now()).status,
      };
    },

    /** Marks an account as needing reconnection (e.g. a sync met Graph code 190). */
    async markInstagramNeedsReconnection(accountId: string, reason: string) {
      await repo.updateInstagramAccount(
        accountId,
        { status: "needs_reconnection", status_reason: reason },
        clock.now(),
      );
    },

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
              { status: "needs_reconnection", status_reason: tokenReason(err, "Instagram") },
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

    /** The profile's `social_accounts` and `token_expires_at` (auth's SocialAccountsLoader). */
    async socialAccounts(userId: string) {
      const accounts = await repo.listInstagramAccounts(userId);
      return {
        accounts: accounts.map((a) => ({
          id: a.id,
          username: a.username,
          display_name: a.display_name,
          profile_picture_url: a.profile_picture_url,
        })),
        tokenExpiresAt: await repo.earliestTokenExpiry(userId),
      };
    },
  };
}

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

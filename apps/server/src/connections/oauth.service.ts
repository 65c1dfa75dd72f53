import {
  connectionMessages as m,
  type OAuthCallbackResponse,
  type OAuthProvider,
} from "@keepsake/contracts";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "../lib/errors.ts";
import { asError } from "../lib/log.ts";
import type { FacebookClient } from "../providers/facebook/facebook.client.ts";
import { connectFailureWords } from "../providers/failure-words.ts";
import { type GoogleOAuthClient, grantsDrive } from "../providers/google/google-oauth.client.ts";
import { COMMENTS_PERMISSION } from "../providers/instagram/comments.client.ts";
import type { InstagramClient } from "../providers/instagram/instagram.client.ts";
import { ProviderError } from "../providers/provider-error.ts";
import { createAccountSlots } from "./account-slots.ts";
import { ConnectionError } from "./connection-error.ts";
import { type ConnectionsLog, expiresAt, LABEL } from "./connection-rules.ts";
import type { ConnectionsRepository } from "./connections.repository.ts";
import type { AccountChosen } from "./destination-state.ts";
import type { GrantPurpose, OAuthStates } from "./oauth-state.ts";
import type { InstagramAccountRow } from "./tables.ts";
import type { TokenCustody } from "./token-custody.service.ts";

const PROFESSIONAL_TYPES = new Set(["BUSINESS", "MEDIA_CREATOR", "CREATOR"]);

export interface OAuthServiceDeps {
  repo: ConnectionsRepository;
  states: OAuthStates;
  clock: Clock;
  /** What the providers grant is stored sealed. */
  tokens: Pick<TokenCustody, "seal">;
  /** Keepsake's public origin: redirect URIs are `${appUrl}/api/oauth/<provider>/callback`. */
  appUrl: string;
  instagram: InstagramClient;
  facebook: FacebookClient;
  google: GoogleOAuthClient;
  log?: ConnectionsLog;
  /**
   * Called once a connection is made: the Instagram accounts just connected, or every account
   * (`undefined`) when Google Drive was. The sync area starts the first backup from here.
   */
  onConnected?: (userId: string, accountIds: string[] | undefined) => Promise<unknown>;
  /** Told, inside the transaction storing Google's connection, which Google account it is. */
  onAccountChosen?: AccountChosen;
}

/** What a provider sent back to the callback. */
export interface CallbackParams {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/** A provider failure during a callback, as a message a person understands. */
function callbackFailure(err: unknown, provider: OAuthProvider): never {
  if (err instanceof AppError) throw err;
  if (err instanceof ProviderError) {
    const { refused, message } = connectFailureWords(err, LABEL[provider]);
    throw new ConnectionError(refused ? "bad_request" : "upstream", "provider_error", message);
  }
  throw err;
}

/** The OAuth flows: starting and completing a connection with Instagram, Facebook, Google. */
export function createOAuthService(deps: OAuthServiceDeps) {
  const { repo, states, clock, instagram, facebook, google } = deps;
  const redirectUri = (provider: OAuthProvider) => `${deps.appUrl}/api/oauth/${provider}/callback`;
  const seal = deps.tokens.seal;
  const { assertCanAddAccount, saveInstagramAccount } = createAccountSlots({ repo, clock, seal });

  /** A failure to start the first sync never fails the connection itself. */
  async function connected(userId: string, accountIds: string[] | undefined) {
    try {
      await deps.onConnected?.(userId, accountIds);
    } catch (err) {
      deps.log?.warn({ userId, err: asError(err) }, "first sync after connecting did not start");
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
  ): Promise<{ code: string; userId: string; purpose: GrantPurpose | null }> {
    if (p.error) return cancelled(provider, p, userId);
    if (!p.code || !p.state) {
      throw new ConnectionError("bad_request", "invalid_state", m.stateInvalid);
    }
    const state = await states.consume(p.state, provider, userId);
    const kind = state.purpose;
    const purpose: GrantPurpose | null =
      (kind === "comments" || kind === "stories") && state.purpose_username
        ? { kind, username: state.purpose_username }
        : null;
    return { code: p.code, userId: state.user_id, purpose };
  }

  /**
   * Where the browser goes after an Instagram connection: `base`, and when the consent was a
   * re-consent for an account now saved, why (`purpose`) and which account, so the dashboard
   * says what changed ("comments are now kept") rather than "connected".
   */
  function connectedRedirect(base: string, purpose: GrantPurpose | null, saved: string[]) {
    if (!purpose || !saved.includes(purpose.username)) return base;
    const q = new URLSearchParams({ purpose: purpose.kind, account: purpose.username });
    return `${base}&${q}`;
  }

  /**
   * Re-consent for an account already connected, asking `extraScopes` too (an opt-in such as
   * comments): the consent of the way it was connected. It adds no account, so the plan's
   * account limit does not stop it; the callback refreshes the account's token in place.
   * `purpose` names why and for which account: the redirect back says so.
   */
  async function startGrant(
    userId: string,
    via: "instagram" | "facebook",
    extraScopes: string[],
    purpose: GrantPurpose | null = null,
  ) {
    ensureConfigured(via);
    const redirect = redirectUri(via);
    if (via === "instagram") {
      const state = await states.issue(userId, "instagram", "business", purpose);
      return { auth_url: instagram.authorizeUrl({ redirectUri: redirect, state, extraScopes }) };
    }
    const state = await states.issue(userId, "facebook", null, purpose);
    return { auth_url: facebook.dialogUrl({ redirectUri: redirect, state, extraScopes }) };
  }

  return {
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

    startGrant,

    /**
     * The same account through Facebook Login (its stories need it). When it keeps comments,
     * Facebook is asked for the comments permission too: Instagram Login's does not carry over.
     */
    async startSwitch(userId: string, accountId: string | undefined, keepComments: boolean) {
      const account = accountId ? await repo.findInstagramAccount(userId, accountId) : undefined;
      if (accountId && !account) throw new AppError("not_found", "Account not found");
      return startGrant(
        userId,
        "facebook",
        keepComments ? [COMMENTS_PERMISSION.facebook] : [],
        account ? { kind: "stories", username: account.username } : null,
      );
    },

    async startGoogle(userId: string) {
      ensureConfigured("google");
      const state = await states.issue(userId, "google");
      return { auth_url: google.authUrl({ redirectUri: redirectUri("google"), state }) };
    },

    /** Instagram Login callback. `callerId` is the signed-in caller of a POST callback. */
    async completeInstagram(p: CallbackParams, callerId?: string): Promise<OAuthCallbackResponse> {
      const { code, userId, purpose } = await begin("instagram", p, callerId);
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
          { connectedVia: "instagram", facebookPageId: null, metaUserId: short.userId },
        );
        await connected(userId, [row.id]);
        return {
          provider: "instagram",
          redirect_to: connectedRedirect("/dashboard?instagram_connected=true", purpose, [
            row.username,
          ]),
          instagram_username: row.username,
          google_email: null,
        };
      } catch (err) {
        return callbackFailure(err, "instagram");
      }
    },

    /** Facebook Login callback: every page-linked professional account that fits is connected. */
    async completeFacebook(p: CallbackParams, callerId?: string): Promise<OAuthCallbackResponse> {
      const { code, userId, purpose } = await begin("facebook", p, callerId);
      try {
        const short = await facebook.exchangeCode({ code, redirectUri: redirectUri("facebook") });
        const long = await facebook
          .exchangeForLongLived(short.accessToken)
          .catch((err: unknown) => {
            if (err instanceof ProviderError && err.kind !== "token_invalid") return short;
            throw err;
          });
        const [pages, metaUserId] = await Promise.all([
          facebook.listPages(long.accessToken),
          facebook.userId(long.accessToken),
        ]);
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
                { connectedVia: "facebook", facebookPageId: page.id, metaUserId },
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
          redirect_to: connectedRedirect(
            "/dashboard?instagram_connected=true&via=facebook",
            purpose,
            saved.map((a) => a.username),
          ),
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
          deps.onAccountChosen,
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
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;

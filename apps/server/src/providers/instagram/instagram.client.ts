import type { ProviderSettings } from "../../config.ts";
import { type FetchLike, FORM_HEADERS, form, requestJson } from "../http.ts";
import { graphError, ProviderError } from "../provider-error.ts";

/** The profile of an Instagram professional account (`/me` with Instagram Login). */
export interface InstagramProfile {
  /** The professional account id (ig-user-id). */
  userId: string;
  username: string;
  name: string | null;
  accountType: string | null;
  profilePictureUrl: string | null;
  followersCount: number;
  followsCount: number;
  mediaCount: number;
}

export interface LongLivedToken {
  accessToken: string;
  /** Seconds; null when the provider did not say. */
  expiresIn: number | null;
}

const PROFILE_FIELDS =
  "user_id,username,name,account_type,profile_picture_url,followers_count,follows_count,media_count";

const str = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function longLived(body: Record<string, unknown>, provider: "instagram" | "facebook") {
  const accessToken = str(body.access_token);
  if (!accessToken) throw new ProviderError(provider, "unknown", "No access token in the answer");
  return {
    accessToken,
    expiresIn: typeof body.expires_in === "number" ? body.expires_in : null,
  } satisfies LongLivedToken;
}

/** Instagram API with Instagram Login: HTTP only (PROVIDERS.md). */
export function createInstagramClient(
  settings: ProviderSettings["instagram"] & { graphVersion: string },
  fetchImpl: FetchLike = fetch,
) {
  const call = (url: string, init: RequestInit = {}) =>
    requestJson(url, init, {
      provider: "instagram",
      fetch: fetchImpl,
      classify: (status, body) => graphError("instagram", status, body),
    });

  function credentials() {
    if (!settings.clientId || !settings.clientSecret) {
      throw new ProviderError("instagram", "oauth", "Instagram Login is not configured");
    }
    return { clientId: settings.clientId, clientSecret: settings.clientSecret };
  }

  return {
    get configured() {
      return Boolean(settings.clientId && settings.clientSecret);
    },

    /** `extraScopes`: permissions asked beside the basic one (re-consent, e.g. comments). */
    authorizeUrl(p: { redirectUri: string; state: string; extraScopes?: string[] }): string {
      const u = new URL(`${settings.wwwUrl}/oauth/authorize`);
      u.search = form({
        client_id: credentials().clientId,
        redirect_uri: p.redirectUri,
        response_type: "code",
        scope: ["instagram_business_basic", ...(p.extraScopes ?? [])].join(","),
        state: p.state,
      });
      return u.toString();
    },

    /** Code → short-lived token. The answer may be flat or wrapped in `data[]`. */
    async exchangeCode(p: { code: string; redirectUri: string }) {
      const { clientId, clientSecret } = credentials();
      const body = await call(`${settings.apiUrl}/oauth/access_token`, {
        method: "POST",
        headers: FORM_HEADERS,
        body: form({
          client_id: clientId,
          client_secret: clientSecret,
          grant_type: "authorization_code",
          redirect_uri: p.redirectUri,
          code: p.code.replace(/#_$/, ""),
        }),
      });
      const first = Array.isArray(body.data) ? (body.data[0] as Record<string, unknown>) : body;
      const accessToken = str(first?.access_token);
      if (!accessToken) throw new ProviderError("instagram", "unknown", "No access token");
      const permissions = first?.permissions;
      return {
        accessToken,
        userId: str(first?.user_id),
        permissions: Array.isArray(permissions)
          ? permissions.map(String)
          : typeof permissions === "string"
            ? permissions.split(",")
            : [],
      };
    },

    async exchangeForLongLived(shortToken: string): Promise<LongLivedToken> {
      const u = new URL(`${settings.graphUrl}/access_token`);
      u.search = form({
        grant_type: "ig_exchange_token",
        client_secret: credentials().clientSecret,
        access_token: shortToken,
      });
      return longLived(await call(u.toString()), "instagram");
    },

    /** Only for a token ≥ 24 h old and unexpired; the new one lives 60 days from now. */
    async refreshLongLived(token: string): Promise<LongLivedToken> {
      const u = new URL(`${settings.graphUrl}/refresh_access_token`);
      u.search = form({ grant_type: "ig_refresh_token", access_token: token });
      return longLived(await call(u.toString()), "instagram");
    },

    async getProfile(token: string): Promise<InstagramProfile> {
      const u = new URL(`${settings.graphUrl}/${settings.graphVersion}/me`);
      u.search = form({ fields: PROFILE_FIELDS, access_token: token });
      const b = await call(u.toString());
      const userId = str(b.user_id) ?? str(b.id);
      const username = str(b.username);
      if (!userId || !username) {
        throw new ProviderError("instagram", "unknown", "The profile has no id or username");
      }
      return {
        userId,
        username,
        name: str(b.name),
        accountType: str(b.account_type),
        profilePictureUrl: str(b.profile_picture_url),
        followersCount: int(b.followers_count),
        followsCount: int(b.follows_count),
        mediaCount: int(b.media_count),
      };
    },
  };
}

export type InstagramClient = ReturnType<typeof createInstagramClient>;
export { longLived as parseLongLivedToken };

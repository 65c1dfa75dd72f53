import type { ProviderSettings } from "../../config.ts";
import { type FetchLike, form, requestJson } from "../http.ts";
import type { InstagramProfile, LongLivedToken } from "../instagram/instagram.client.ts";
import { parseLongLivedToken } from "../instagram/instagram.client.ts";
import { graphError, ProviderError } from "../provider-error.ts";

export interface FacebookPage {
  id: string;
  name: string;
  /** The linked Instagram professional account, when there is one. */
  instagramUserId: string | null;
}

const str = (v: unknown): string | null =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : null;
const int = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** Instagram API with Facebook Login for Business: HTTP only (PROVIDERS.md). */
export function createFacebookClient(
  settings: ProviderSettings["facebook"] & { graphVersion: string },
  fetchImpl: FetchLike = fetch,
) {
  const graph = `${settings.graphUrl}/${settings.graphVersion}`;
  const call = (url: string, init: RequestInit = {}) =>
    requestJson(url, init, {
      provider: "facebook",
      fetch: fetchImpl,
      classify: (status, body) => graphError("facebook", status, body),
    });

  function credentials() {
    if (!settings.appId || !settings.appSecret) {
      throw new ProviderError("facebook", "oauth", "Facebook Login is not configured");
    }
    return { appId: settings.appId, appSecret: settings.appSecret };
  }

  return {
    get configured() {
      return Boolean(settings.appId && settings.appSecret);
    },

    /** `extraScopes`: permissions asked beside the basic ones (re-consent, e.g. comments). */
    dialogUrl(p: { redirectUri: string; state: string; extraScopes?: string[] }): string {
      const u = new URL(`${settings.wwwUrl}/${settings.graphVersion}/dialog/oauth`);
      u.search = form({
        client_id: credentials().appId,
        redirect_uri: p.redirectUri,
        state: p.state,
        response_type: "code",
        scope: [
          "instagram_basic,pages_show_list,pages_read_engagement",
          ...(p.extraScopes ?? []),
        ].join(","),
      });
      return u.toString();
    },

    async exchangeCode(p: { code: string; redirectUri: string }): Promise<LongLivedToken> {
      const { appId, appSecret } = credentials();
      const u = new URL(`${graph}/oauth/access_token`);
      u.search = form({
        client_id: appId,
        redirect_uri: p.redirectUri,
        client_secret: appSecret,
        code: p.code,
      });
      return parseLongLivedToken(await call(u.toString()), "facebook");
    },

    async exchangeForLongLived(token: string): Promise<LongLivedToken> {
      const { appId, appSecret } = credentials();
      const u = new URL(`${graph}/oauth/access_token`);
      u.search = form({
        grant_type: "fb_exchange_token",
        client_id: appId,
        client_secret: appSecret,
        fb_exchange_token: token,
      });
      return parseLongLivedToken(await call(u.toString()), "facebook");
    },

    /** The user's pages with their linked Instagram professional accounts (first 100). */
    async listPages(token: string): Promise<FacebookPage[]> {
      const u = new URL(`${graph}/me/accounts`);
      u.search = form({
        fields: "id,name,instagram_business_account",
        limit: "100",
        access_token: token,
      });
      const b = await call(u.toString());
      const data = Array.isArray(b.data) ? (b.data as Record<string, unknown>[]) : [];
      return data.map((p) => {
        const ig = p.instagram_business_account as Record<string, unknown> | undefined;
        return {
          id: str(p.id) ?? "",
          name: str(p.name) ?? "",
          instagramUserId: ig ? str(ig.id) : null,
        };
      });
    },

    /** The person's app-scoped Facebook user id (what Meta's deauthorize and data-deletion callbacks name). */
    async userId(token: string): Promise<string> {
      const u = new URL(`${graph}/me`);
      u.search = form({ fields: "id", access_token: token });
      const id = str((await call(u.toString())).id);
      if (!id) throw new ProviderError("facebook", "unknown", "The Facebook user has no id");
      return id;
    },

    /** De-authorises Keepsake for the person who granted the token (all their tokens end). */
    async revokePermissions(token: string): Promise<boolean> {
      const u = new URL(`${graph}/me/permissions`);
      u.search = form({ access_token: token });
      const b = await call(u.toString(), { method: "DELETE" });
      return b.success === true;
    },

    /** The Instagram professional account's profile through the Facebook Graph host. */
    async getInstagramProfile(igUserId: string, token: string): Promise<InstagramProfile> {
      const u = new URL(`${graph}/${encodeURIComponent(igUserId)}`);
      u.search = form({
        fields: "id,username,name,profile_picture_url,followers_count,follows_count,media_count",
        access_token: token,
      });
      const b = await call(u.toString());
      const username = str(b.username);
      if (!username) throw new ProviderError("facebook", "unknown", "The profile has no username");
      return {
        userId: str(b.id) ?? igUserId,
        username,
        name: str(b.name),
        accountType: null,
        profilePictureUrl: str(b.profile_picture_url),
        followersCount: int(b.followers_count),
        followsCount: int(b.follows_count),
        mediaCount: int(b.media_count),
      };
    },
  };
}

export type FacebookClient = ReturnType<typeof createFacebookClient>;

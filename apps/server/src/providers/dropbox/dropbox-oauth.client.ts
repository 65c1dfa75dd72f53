import { createHash, randomBytes } from "node:crypto";
import { type FetchLike, FORM_HEADERS, form, requestJson } from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import { dropboxError } from "./dropbox-error.ts";

/** Least privilege for an app-folder app: write and read its own files, nothing else. */
export const DROPBOX_SCOPES = ["files.content.write", "files.content.read", "files.metadata.read"];

export interface DropboxSettings {
  appKey: string | null;
  appSecret: string | null;
  /** `https://www.dropbox.com` (the consent page). */
  wwwUrl: string;
  /** `https://api.dropboxapi.com` (token endpoint and RPC calls). */
  apiUrl: string;
  /** `https://content.dropboxapi.com` (uploads and downloads). */
  contentUrl: string;
}

export const DROPBOX_LIVE_URLS = {
  wwwUrl: "https://www.dropbox.com",
  apiUrl: "https://api.dropboxapi.com",
  contentUrl: "https://content.dropboxapi.com",
};

export interface DropboxTokens {
  accessToken: string;
  /** Seconds (Dropbox: about 4 hours). */
  expiresIn: number | null;
  /** Only on the code grant with `token_access_type=offline`. */
  refreshToken: string | null;
  accountId: string | null;
  scopes: string[];
}

function tokens(b: Record<string, unknown>): DropboxTokens {
  if (typeof b.access_token !== "string")
    throw new ProviderError("dropbox", "unknown", "No access token in Dropbox's answer");
  return {
    accessToken: b.access_token,
    expiresIn: typeof b.expires_in === "number" ? b.expires_in : null,
    refreshToken: typeof b.refresh_token === "string" ? b.refresh_token : null,
    accountId: typeof b.account_id === "string" ? b.account_id : null,
    scopes: typeof b.scope === "string" ? b.scope.split(/\s+/).filter(Boolean) : [],
  };
}

/**
 * Dropbox OAuth 2 for an app-folder app: the code flow with PKCE (S256) and a client secret,
 * `token_access_type=offline` for a refresh token, short-lived access tokens.
 *
 * The `dropbox` package's `DropboxAuth` is not used here: `getAuthenticationUrl` leaves
 * `redirect_uri` and `state` unencoded, its PKCE generator is missing from its type definitions
 * (and hands the challenge back on no typed getter), and its token calls put the code, the client
 * secret and the refresh token in the URL's query. The PKCE pair is RFC 7636's S256 (below), and
 * the token calls send a form body through `providers/http.ts`.
 */
export function createDropboxOAuthClient(settings: DropboxSettings, fetchImpl: FetchLike = fetch) {
  function credentials() {
    if (!settings.appKey || !settings.appSecret)
      throw new ProviderError("dropbox", "oauth", "Dropbox is not configured");
    return { appKey: settings.appKey, appSecret: settings.appSecret };
  }
  const tokenRequest = async (fields: Record<string, string>) =>
    tokens(
      await requestJson(
        `${settings.apiUrl}/oauth2/token`,
        { method: "POST", headers: FORM_HEADERS, body: form(fields) },
        { provider: "dropbox", fetch: fetchImpl, classify: dropboxError },
      ),
    );

  return {
    get configured() {
      return Boolean(settings.appKey && settings.appSecret);
    },

    /**
     * The consent page's URL and the PKCE verifier the code exchange needs: keep the verifier
     * with the OAuth state (sealed) until the callback, or give one derived from the state
     * (`codeVerifier`, 43–128 URL-safe characters) that the callback can derive again.
     */
    authUrl(p: { redirectUri: string; state: string; codeVerifier?: string }) {
      const { appKey } = credentials();
      const codeVerifier = p.codeVerifier ?? randomBytes(64).toString("base64url");
      const codeChallenge = createHash("sha256").update(codeVerifier).digest("base64url");
      const u = new URL(`${settings.wwwUrl}/oauth2/authorize`);
      u.search = form({
        client_id: appKey,
        response_type: "code",
        redirect_uri: p.redirectUri,
        state: p.state,
        token_access_type: "offline",
        scope: DROPBOX_SCOPES.join(" "),
        code_challenge: codeChallenge,
        code_challenge_method: "S256",
      });
      return { url: u.toString(), codeVerifier };
    },

    exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }) {
      const { appKey, appSecret } = credentials();
      return tokenRequest({
        grant_type: "authorization_code",
        code: p.code,
        redirect_uri: p.redirectUri,
        code_verifier: p.codeVerifier,
        client_id: appKey,
        client_secret: appSecret,
      });
    },

    /** A new short-lived access token; `token_invalid` (invalid_grant) means the grant is gone. */
    refreshAccessToken(refreshToken: string) {
      const { appKey, appSecret } = credentials();
      return tokenRequest({
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: appKey,
        client_secret: appSecret,
      });
    },
  };
}

export type DropboxOAuthClient = ReturnType<typeof createDropboxOAuthClient>;

import type { ProviderSettings } from "../../config.ts";
import { type FetchLike, FORM_HEADERS, failure, form, requestJson, send } from "../http.ts";
import { googleError, ProviderError } from "../provider-error.ts";

export const DRIVE_FILE_SCOPE = "https://www.googleapis.com/auth/drive.file";
const DRIVE_FULL_SCOPE = "https://www.googleapis.com/auth/drive";
export const GOOGLE_SCOPES = ["openid", "email", DRIVE_FILE_SCOPE];

export interface GoogleTokens {
  accessToken: string;
  expiresIn: number | null;
  refreshToken: string | null;
  /** The scopes granted, which may be fewer than asked for (the user can untick Drive). */
  scopes: string[];
}

/** True when the granted scopes let Keepsake write its backup files. */
export function grantsDrive(scopes: string[]): boolean {
  return scopes.includes(DRIVE_FILE_SCOPE) || scopes.includes(DRIVE_FULL_SCOPE);
}

function tokens(b: Record<string, unknown>): GoogleTokens {
  if (typeof b.access_token !== "string") {
    throw new ProviderError("google", "unknown", "No access token in the answer");
  }
  return {
    accessToken: b.access_token,
    expiresIn: typeof b.expires_in === "number" ? b.expires_in : null,
    refreshToken: typeof b.refresh_token === "string" ? b.refresh_token : null,
    scopes: typeof b.scope === "string" ? b.scope.split(/\s+/).filter(Boolean) : [],
  };
}

/** Google OAuth 2.0 web-server flow, userinfo and revoke: HTTP only (PROVIDERS.md). */
export function createGoogleOAuthClient(
  settings: ProviderSettings["google"],
  fetchImpl: FetchLike = fetch,
) {
  const call = (url: string, init: RequestInit = {}) =>
    requestJson(url, init, { provider: "google", fetch: fetchImpl, classify: googleError });

  /** The token endpoint: a form POST answered with tokens. */
  const tokenRequest = async (fields: Record<string, string>) =>
    tokens(
      await call(`${settings.oauth2Url}/token`, {
        method: "POST",
        headers: FORM_HEADERS,
        body: form(fields),
      }),
    );

  function credentials() {
    if (!settings.clientId || !settings.clientSecret) {
      throw new ProviderError("google", "oauth", "Google sign-in is not configured");
    }
    return { clientId: settings.clientId, clientSecret: settings.clientSecret };
  }

  return {
    get configured() {
      return Boolean(settings.clientId && settings.clientSecret);
    },

    authUrl(p: { redirectUri: string; state: string }): string {
      const u = new URL(`${settings.accountsUrl}/o/oauth2/v2/auth`);
      u.search = form({
        client_id: credentials().clientId,
        redirect_uri: p.redirectUri,
        response_type: "code",
        scope: GOOGLE_SCOPES.join(" "),
        access_type: "offline",
        prompt: "consent",
        include_granted_scopes: "true",
        state: p.state,
      });
      return u.toString();
    },

    async exchangeCode(p: { code: string; redirectUri: string }): Promise<GoogleTokens> {
      const { clientId, clientSecret } = credentials();
      return tokenRequest({
        code: p.code,
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uri: p.redirectUri,
        grant_type: "authorization_code",
      });
    },

    async refreshAccessToken(refreshToken: string): Promise<GoogleTokens> {
      const { clientId, clientSecret } = credentials();
      return tokenRequest({
        client_id: clientId,
        client_secret: clientSecret,
        refresh_token: refreshToken,
        grant_type: "refresh_token",
      });
    },

    /** Revokes the grant behind a refresh or access token. */
    async revoke(token: string): Promise<void> {
      // Google documents the token as a query parameter; the form body carries it too.
      const res = await send(
        `${settings.oauth2Url}/revoke?${form({ token })}`,
        { method: "POST", headers: FORM_HEADERS, body: form({ token }) },
        { provider: "google", fetch: fetchImpl },
      );
      if (!res.ok) throw await failure(res, googleError, Date.now());
    },

    async userinfo(accessToken: string): Promise<{ sub: string; email: string }> {
      const b = await call(`${settings.openidUrl}/v1/userinfo`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      if (typeof b.sub !== "string" || typeof b.email !== "string") {
        throw new ProviderError("google", "unknown", "Google did not share the e-mail address");
      }
      return { sub: b.sub, email: b.email };
    },

    /**
     * Cross-Account Protection: the issuer of Google's security event tokens and the keys they
     * are signed with (the RISC discovery document, then its `jwks_uri`).
     */
    async securityEventKeys(): Promise<{ issuer: string; keys: Record<string, unknown>[] }> {
      const doc = await call(`${settings.accountsUrl}/.well-known/risc-configuration`);
      if (typeof doc.issuer !== "string" || typeof doc.jwks_uri !== "string") {
        throw new ProviderError("google", "unknown", "Google's RISC configuration is incomplete");
      }
      const jwks = await call(doc.jwks_uri);
      const keys = Array.isArray(jwks.keys) ? (jwks.keys as Record<string, unknown>[]) : [];
      return { issuer: doc.issuer, keys };
    },
  };
}

export type GoogleOAuthClient = ReturnType<typeof createGoogleOAuthClient>;

import { type FetchLike, FORM_HEADERS, form, requestJson } from "../http.ts";
import { ProviderError, type ProviderErrorKind } from "../provider-error.ts";

/**
 * Only the app folder (`/me/drive/special/approot`), a refresh token, and `User.Read` for the
 * account's address (Graph `/me`, the label Settings shows: without it `/me` answers 403).
 */
export const MICROSOFT_SCOPES = ["Files.ReadWrite.AppFolder", "offline_access", "User.Read"];

export interface MicrosoftSettings {
  clientId: string | null;
  clientSecret: string | null;
  /** `https://login.microsoftonline.com`. */
  loginUrl: string;
  /** `common` (work, school and personal accounts) or `consumers`. */
  tenant: string;
  /** `https://graph.microsoft.com`. */
  graphUrl: string;
}

export interface MicrosoftTokens {
  accessToken: string;
  expiresIn: number | null;
  /** Microsoft rotates refresh tokens: keep the one each grant answers. */
  refreshToken: string | null;
  scopes: string[];
}

/** The identity platform's `{"error","error_description":"AADSTS…"}`. */
export function microsoftOAuthError(status: number, body: unknown): ProviderError {
  const b = (body ?? {}) as Record<string, unknown>;
  const code = typeof b.error === "string" ? b.error : `http_${status}`;
  const kind: ProviderErrorKind =
    code === "invalid_grant" || code === "interaction_required"
      ? "token_invalid"
      : status >= 500 || code === "temporarily_unavailable"
        ? "transient"
        : "oauth";
  const description =
    typeof b.error_description === "string" ? `: ${b.error_description.split("\n")[0]}` : "";
  return new ProviderError("microsoft", kind, `Microsoft sign-in: ${code}${description}`, {
    status,
    code,
  });
}

function tokens(b: Record<string, unknown>): MicrosoftTokens {
  if (typeof b.access_token !== "string")
    throw new ProviderError("microsoft", "unknown", "No access token in Microsoft's answer");
  return {
    accessToken: b.access_token,
    expiresIn: typeof b.expires_in === "number" ? b.expires_in : null,
    refreshToken: typeof b.refresh_token === "string" ? b.refresh_token : null,
    scopes: typeof b.scope === "string" ? b.scope.split(/\s+/).filter(Boolean) : [],
  };
}

/** Microsoft identity platform v2.0: the authorization-code flow with a client secret. HTTP only. */
export function createMicrosoftOAuthClient(
  settings: MicrosoftSettings,
  fetchImpl: FetchLike = fetch,
) {
  const base = () => `${settings.loginUrl}/${encodeURIComponent(settings.tenant)}/oauth2/v2.0`;
  function credentials() {
    if (!settings.clientId || !settings.clientSecret)
      throw new ProviderError("microsoft", "oauth", "OneDrive is not configured");
    return { clientId: settings.clientId, clientSecret: settings.clientSecret };
  }
  const tokenRequest = async (fields: Record<string, string>) =>
    tokens(
      await requestJson(
        `${base()}/token`,
        { method: "POST", headers: FORM_HEADERS, body: form(fields) },
        { provider: "microsoft", fetch: fetchImpl, classify: microsoftOAuthError },
      ),
    );

  return {
    get configured() {
      return Boolean(settings.clientId && settings.clientSecret);
    },

    authUrl(p: { redirectUri: string; state: string }): string {
      const u = new URL(`${base()}/authorize`);
      u.search = form({
        client_id: credentials().clientId,
        response_type: "code",
        redirect_uri: p.redirectUri,
        response_mode: "query",
        scope: MICROSOFT_SCOPES.join(" "),
        state: p.state,
      });
      return u.toString();
    },

    exchangeCode(p: { code: string; redirectUri: string }) {
      const { clientId, clientSecret } = credentials();
      return tokenRequest({
        client_id: clientId,
        client_secret: clientSecret,
        grant_type: "authorization_code",
        code: p.code,
        redirect_uri: p.redirectUri,
        scope: MICROSOFT_SCOPES.join(" "),
      });
    },

    /** A new access token and a new refresh token; `token_invalid` means reconnect. */
    refreshAccessToken(refreshToken: string) {
      const { clientId, clientSecret } = credentials();
      return tokenRequest({
        client_id: clientId,
        client_secret: clientSecret,
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        scope: MICROSOFT_SCOPES.join(" "),
      });
    },
  };
}

export type MicrosoftOAuthClient = ReturnType<typeof createMicrosoftOAuthClient>;

import { type FetchLike, requestJson } from "../http.ts";
import { ProviderError } from "../provider-error.ts";
import { graphApiError } from "./graph-error.ts";
import type { MicrosoftSettings } from "./microsoft-oauth.client.ts";

/** Who granted Keepsake a OneDrive: the Microsoft user's id and the address they sign in with. */
export interface MicrosoftAccount {
  id: string;
  email: string;
}

/**
 * Graph `GET /me` with the access token just granted (it needs `User.Read`, which
 * `MICROSOFT_SCOPES` asks for): `mail`, or `userPrincipalName` when the account has no mailbox
 * (many work accounts, some personal ones).
 */
export async function microsoftAccount(
  settings: Pick<MicrosoftSettings, "graphUrl">,
  accessToken: string,
  fetchImpl: FetchLike = fetch,
): Promise<MicrosoftAccount> {
  const me = await requestJson(
    `${settings.graphUrl}/v1.0/me?$select=id,mail,userPrincipalName`,
    { headers: { authorization: `Bearer ${accessToken}` } },
    { provider: "microsoft", label: "Microsoft", fetch: fetchImpl, classify: graphApiError },
  );
  const email =
    typeof me.mail === "string" && me.mail
      ? me.mail
      : typeof me.userPrincipalName === "string"
        ? me.userPrincipalName
        : null;
  if (typeof me.id !== "string" || !email)
    throw new ProviderError("microsoft", "unknown", "Microsoft did not say whose account it is");
  return { id: me.id, email };
}

import { createPublicKey, verify, type webcrypto } from "node:crypto";
import { OAuth2Client } from "google-auth-library";
import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS as C, DEMO_GOOGLE } from "../src/index.ts";
import {
  CALLBACK,
  formPost,
  GOOGLE_SCOPE,
  googleCode,
  googleTokens,
  json,
  type OAuthError,
  useHarness,
} from "./helpers.ts";

const h = useHarness();

const J = DEMO_GOOGLE.jordan;
const DRIVE = "https://www.googleapis.com/auth/drive.file";

function client(): OAuth2Client {
  return new OAuth2Client({
    clientId: C.google.clientId,
    clientSecret: C.google.clientSecret,
    redirectUri: CALLBACK,
    endpoints: {
      oauth2AuthBaseUrl: `${h.url}/accounts.google.com/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${h.url}/oauth2.googleapis.com/token`,
      oauth2RevokeUrl: `${h.url}/oauth2.googleapis.com/revoke`,
      tokenInfoUrl: `${h.url}/oauth2.googleapis.com/tokeninfo`,
    },
  });
}

describe("Google OAuth", () => {
  it("shows an account chooser, then a consent page with the pre-ticked Drive checkbox", async () => {
    const url = client().generateAuthUrl({
      access_type: "offline",
      prompt: "consent",
      scope: GOOGLE_SCOPE.split(" "),
      state: "x",
      include_granted_scopes: true,
    });
    expect(url.startsWith(`${h.url}/accounts.google.com/o/oauth2/v2/auth?`)).toBe(true);
    const chooser = await (await fetch(url)).text();
    expect(chooser).toContain("Choose an account");
    expect(chooser).toContain(J.email);
    const href = /href="([^"]*authuser=[^"]*)"/.exec(chooser)![1]!.replace(/&amp;/g, "&");
    const consent = await (await h.get(href)).text();
    expect(consent).toContain(
      "See, edit, create and delete only the specific Google Drive files you use with this app",
    );
    expect(consent).toMatch(/<input type="checkbox" name="drive_file" value="on" checked>/);
    expect(consent).toContain(">Continue<");
    expect(consent).toContain(">Cancel<");
  });

  it("grants drive.file only when the box stays ticked", async () => {
    const ticked = await googleCode(h, J.sub, true);
    expect(ticked.scope.split(" ")).toContain(DRIVE);
    await h.ctl("reset", {});
    const unticked = await googleCode(h, J.sub, false);
    expect(unticked.scope.split(" ")).not.toContain(DRIVE);
    const { tokens } = await client().getToken(unticked.code);
    expect(tokens.scope?.split(" ")).not.toContain(DRIVE);
    expect(tokens.scope?.split(" ")).toContain("openid");
  });

  it("Cancel redirects with access_denied", async () => {
    const res = await formPost(`${h.url}/accounts.google.com/o/oauth2/v2/auth`, {
      client_id: C.google.clientId,
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: GOOGLE_SCOPE,
      state: "q",
      authuser: J.sub,
      decision: "cancel",
    });
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("error")).toBe("access_denied");
    expect(loc.searchParams.get("state")).toBe("q");
  });

  it("exchanges, refreshes and revokes with the official OAuth2Client", async () => {
    const oauth = client();
    const { code } = await googleCode(h, J.sub);
    const { tokens } = await oauth.getToken(code);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.token_type).toBe("Bearer");
    expect(tokens.expiry_date).toBeGreaterThan(Date.now());
    expect(tokens.scope?.split(" ")).toContain(DRIVE);
    // Single-use code.
    await expect(oauth.getToken(code)).rejects.toThrow(/invalid_grant/);
    oauth.setCredentials({ refresh_token: tokens.refresh_token });
    const refreshed = await oauth.getAccessToken();
    expect(refreshed.token).toBeTruthy();
    expect(refreshed.token).not.toBe(tokens.access_token);
    const info = await oauth.getTokenInfo(refreshed.token!);
    expect(info.scopes).toContain(DRIVE);
    const me = await fetch(`${h.url}/openidconnect.googleapis.com/v1/userinfo`, {
      headers: { authorization: `Bearer ${refreshed.token}` },
    });
    expect(await me.json()).toMatchObject({
      sub: J.sub,
      email: J.email,
      email_verified: true,
      name: "Jordan Lee",
    });
    await oauth.revokeToken(tokens.refresh_token!);
    const dead = new OAuth2Client({
      clientId: C.google.clientId,
      clientSecret: C.google.clientSecret,
      endpoints: { oauth2TokenUrl: `${h.url}/oauth2.googleapis.com/token` },
    });
    dead.setCredentials({ refresh_token: tokens.refresh_token });
    await expect(dead.getAccessToken()).rejects.toThrow(/invalid_grant|expired or revoked/);
    const after = await fetch(`${h.url}/openidconnect.googleapis.com/v1/userinfo`, {
      headers: { authorization: `Bearer ${refreshed.token}` },
    });
    expect(after.status).toBe(401);
  });

  it("access tokens expire after an hour of sandbox time; the discovery document and id_token check out", async () => {
    const t = await googleTokens(h, J.sub);
    await h.ctl("clock", { advance_seconds: 3600 });
    const res = await fetch(`${h.url}/openidconnect.googleapis.com/v1/userinfo`, {
      headers: { authorization: `Bearer ${t.access_token}` },
    });
    expect(res.status).toBe(401);
    const discovery = await json<{ userinfo_endpoint: string; jwks_uri: string }>(
      h.get("/accounts.google.com/.well-known/openid-configuration"),
    );
    expect(discovery.userinfo_endpoint).toBe(`${h.url}/openidconnect.googleapis.com/v1/userinfo`);
    const jwks = await json<{ keys: webcrypto.JsonWebKey[] }>(fetch(discovery.jwks_uri));
    const [head, payload, sig] = t.id_token.split(".");
    const key = createPublicKey({ key: jwks.keys[0]!, format: "jwk" });
    expect(
      verify("RSA-SHA256", Buffer.from(`${head}.${payload}`), key, Buffer.from(sig!, "base64url")),
    ).toBe(true);
    expect(JSON.parse(Buffer.from(payload!, "base64url").toString())).toMatchObject({
      sub: J.sub,
      email: J.email,
      aud: C.google.clientId,
    });
  });

  it("refresh tokens die after six months without use", async () => {
    const t = await googleTokens(h, J.sub);
    const refresh = () =>
      formPost(`${h.url}/oauth2.googleapis.com/token`, {
        grant_type: "refresh_token",
        refresh_token: t.refresh_token,
        client_id: C.google.clientId,
        client_secret: C.google.clientSecret,
      });
    await h.ctl("clock", { advance_seconds: 150 * 86_400 });
    expect((await refresh()).status).toBe(200);
    await h.ctl("clock", { advance_seconds: 150 * 86_400 });
    expect((await refresh()).status).toBe(200);
    await h.ctl("clock", { advance_seconds: 184 * 86_400 });
    const dead = await refresh();
    expect(((await dead.json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("rejects a wrong client secret and a mismatched redirect_uri", async () => {
    const { code } = await googleCode(h, J.sub);
    const wrong = await formPost(`${h.url}/oauth2.googleapis.com/token`, {
      client_id: C.google.clientId,
      client_secret: "x",
      grant_type: "authorization_code",
      code,
      redirect_uri: CALLBACK,
    });
    expect(wrong.status).toBe(401);
    expect((await json<OAuthError>(wrong)).error).toBe("invalid_client");
    const mismatch = await formPost(`${h.url}/oauth2.googleapis.com/token`, {
      client_id: C.google.clientId,
      client_secret: C.google.clientSecret,
      grant_type: "authorization_code",
      code,
      redirect_uri: "http://localhost:9/other",
    });
    expect((await json<OAuthError>(mismatch)).error).toBe("redirect_uri_mismatch");
  });
});

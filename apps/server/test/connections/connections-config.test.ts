import { SANDBOX_CREDENTIALS } from "@keepsake/sandbox";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, sandboxProviders } from "../../src/config.ts";
import { grantsDrive } from "../../src/providers/google/google-oauth.client.ts";
import { classifyGraphCode, googleError, graphError } from "../../src/providers/provider-error.ts";

describe("provider configuration", () => {
  it("without credentials: sandbox mode, live hosts as defaults", () => {
    const c = loadConfig({});
    expect(c.sandboxMode).toBe(true);
    expect(c.SANDBOX_PORT).toBe(8090);
    expect(c.providers.instagram).toMatchObject({
      clientId: undefined,
      wwwUrl: "https://www.instagram.com",
      apiUrl: "https://api.instagram.com",
      graphUrl: "https://graph.instagram.com",
    });
    expect(c.providers.facebook.graphUrl).toBe("https://graph.facebook.com");
    expect(c.providers.google).toMatchObject({
      accountsUrl: "https://accounts.google.com",
      oauth2Url: "https://oauth2.googleapis.com",
      openidUrl: "https://openidconnect.googleapis.com",
      apisUrl: "https://www.googleapis.com",
    });
    expect(c.providers.graphVersion).toBe("v25.0");
    expect(c.providers.dropbox).toEqual({
      appKey: null,
      appSecret: null,
      wwwUrl: "https://www.dropbox.com",
      apiUrl: "https://api.dropboxapi.com",
      contentUrl: "https://content.dropboxapi.com",
    });
    expect(c.providers.microsoft).toEqual({
      clientId: null,
      clientSecret: null,
      loginUrl: "https://login.microsoftonline.com",
      tenant: "common",
      graphUrl: "https://graph.microsoft.com",
    });
  });

  it("with credentials: live mode and configurable base URLs", () => {
    const c = loadConfig({
      INSTAGRAM_CLIENT_ID: "id",
      INSTAGRAM_CLIENT_SECRET: "secret",
      GOOGLE_CLIENT_ID: "gid",
      GOOGLE_CLIENT_SECRET: "gsecret",
      INSTAGRAM_GRAPH_URL: "http://127.0.0.1:9999/graph/",
      DATABASE_URL: "postgres://db.example/keepsake",
      JWT_SECRET: "j".repeat(32),
      ENCRYPTION_KEY: "e".repeat(64),
    });
    expect(c.sandboxMode).toBe(false);
    expect(c.providers.instagram.clientId).toBe("id");
    expect(c.providers.instagram.graphUrl).toBe("http://127.0.0.1:9999/graph");
    expect(c.providers.facebook.appId).toBeUndefined();
  });

  it("half a credential pair stops start-up, naming the missing variable", () => {
    expect(() => loadConfig({ FACEBOOK_APP_ID: "x" })).toThrow(ConfigError);
    expect(() => loadConfig({ FACEBOOK_APP_ID: "x" })).toThrow(/FACEBOOK_APP_SECRET/);
    expect(() => loadConfig({ GOOGLE_CLIENT_SECRET: "x" })).toThrow(/GOOGLE_CLIENT_ID/);
    expect(() => loadConfig({ GOOGLE_APIS_URL: "not a url" })).toThrow(/GOOGLE_APIS_URL/);
    expect(() => loadConfig({ DROPBOX_APP_KEY: "x" })).toThrow(/DROPBOX_APP_SECRET/);
    expect(() => loadConfig({ MICROSOFT_CLIENT_SECRET: "x" })).toThrow(/MICROSOFT_CLIENT_ID/);
    expect(() => loadConfig({ MICROSOFT_TENANT: "a/b" })).toThrow(/MICROSOFT_TENANT/);
  });

  it("Dropbox and Microsoft credentials are live mode too, with their base URLs", () => {
    const c = loadConfig({
      DROPBOX_APP_KEY: "dkey",
      DROPBOX_APP_SECRET: "dsecret",
      MICROSOFT_CLIENT_ID: "mid",
      MICROSOFT_CLIENT_SECRET: "msecret",
      MICROSOFT_TENANT: "consumers",
      MICROSOFT_GRAPH_URL: "http://127.0.0.1:9999/graph/",
      DATABASE_URL: "postgres://db.example/keepsake",
      JWT_SECRET: "j".repeat(32),
      ENCRYPTION_KEY: "e".repeat(64),
    });
    expect(c.sandboxMode).toBe(false);
    expect(c.providers.dropbox).toMatchObject({ appKey: "dkey", appSecret: "dsecret" });
    expect(c.providers.microsoft).toMatchObject({
      clientId: "mid",
      tenant: "consumers",
      graphUrl: "http://127.0.0.1:9999/graph",
    });
  });

  it("sandbox mode points every host at the sandbox's path prefixes", () => {
    const p = sandboxProviders("http://127.0.0.1:8090/", SANDBOX_CREDENTIALS);
    expect(p.instagram.wwwUrl).toBe("http://127.0.0.1:8090/www.instagram.com");
    expect(p.facebook.graphUrl).toBe("http://127.0.0.1:8090/graph.facebook.com");
    expect(p.google.oauth2Url).toBe("http://127.0.0.1:8090/oauth2.googleapis.com");
    expect(p.google.clientId).toBe(SANDBOX_CREDENTIALS.google.clientId);
    expect(p.dropbox).toEqual({
      appKey: SANDBOX_CREDENTIALS.dropbox.appKey,
      appSecret: SANDBOX_CREDENTIALS.dropbox.appSecret,
      wwwUrl: "http://127.0.0.1:8090/www.dropbox.com",
      apiUrl: "http://127.0.0.1:8090/api.dropboxapi.com",
      contentUrl: "http://127.0.0.1:8090/content.dropboxapi.com",
    });
    expect(p.microsoft).toEqual({
      clientId: SANDBOX_CREDENTIALS.microsoft.clientId,
      clientSecret: SANDBOX_CREDENTIALS.microsoft.clientSecret,
      loginUrl: "http://127.0.0.1:8090/login.microsoftonline.com",
      tenant: "common",
      graphUrl: "http://127.0.0.1:8090/graph.microsoft.com",
    });
  });
});

describe("provider error classification", () => {
  it.each([
    [190, "token_invalid"],
    [4, "throttled"],
    [17, "throttled"],
    [32, "throttled"],
    [613, "throttled"],
    [80002, "throttled"],
    [10, "permission"],
    [200, "permission"],
    [299, "permission"],
    [1, "transient"],
    [2, "transient"],
    [12345, "unknown"],
  ])("Graph code %i → %s", (code, kind) => {
    expect(classifyGraphCode(code)).toBe(kind);
  });

  it("reads the Graph and Instagram token-endpoint shapes, by code not status", () => {
    const e = graphError("instagram", 400, {
      error: { message: "Session expired", type: "OAuthException", code: 190, error_subcode: 463 },
    });
    expect(e).toMatchObject({ kind: "token_invalid", code: 190, subcode: 463, status: 400 });
    expect(graphError("instagram", 500, { error: { code: 4, message: "x" } }).kind).toBe(
      "throttled",
    );
    const t = graphError("instagram", 400, {
      error_type: "OAuthException",
      code: 400,
      error_message: "Invalid authorization code",
    });
    expect(t).toMatchObject({ kind: "oauth", message: "Invalid authorization code" });
  });

  it("reads Google's OAuth `error` and API `reason`", () => {
    expect(googleError(400, { error: "invalid_grant" }).kind).toBe("token_invalid");
    const reason = (r: string, status = 403) =>
      googleError(status, { error: { code: status, message: "m", errors: [{ reason: r }] } }).kind;
    expect(reason("rateLimitExceeded")).toBe("throttled");
    expect(reason("userRateLimitExceeded", 429)).toBe("throttled");
    expect(reason("storageQuotaExceeded")).toBe("quota");
    expect(reason("authError", 401)).toBe("token_invalid");
    expect(reason("notFound", 404)).toBe("not_found");
  });

  it("Drive is usable only when drive.file (or drive) was granted", () => {
    expect(grantsDrive(["openid", "https://www.googleapis.com/auth/drive.file"])).toBe(true);
    expect(grantsDrive(["openid", "https://www.googleapis.com/auth/drive"])).toBe(true);
    expect(grantsDrive(["openid", "email"])).toBe(false);
  });
});

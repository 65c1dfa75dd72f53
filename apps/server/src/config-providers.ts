import { z } from "zod";
import { optionalString } from "./config-fields.ts";

/**
 * The OAuth providers' part of the environment (config.ts reads it with the rest): credentials
 * and one base URL per provider host, the live hosts by default. With none of the credentials
 * set, Keepsake runs in sandbox mode and `sandboxProviders` points every host at the sandbox.
 */
const url = z.url({ error: "must be a URL such as http://localhost:8080" });

export const providerEnv = {
  // Providers (issue 4). With none of these credentials set, Keepsake runs in sandbox mode.
  INSTAGRAM_CLIENT_ID: optionalString,
  INSTAGRAM_CLIENT_SECRET: optionalString,
  FACEBOOK_APP_ID: optionalString,
  FACEBOOK_APP_SECRET: optionalString,
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  /** Issue 38: a Dropbox app (app folder access) and a Microsoft identity app registration. */
  DROPBOX_APP_KEY: optionalString,
  DROPBOX_APP_SECRET: optionalString,
  MICROSOFT_CLIENT_ID: optionalString,
  MICROSOFT_CLIENT_SECRET: optionalString,
  /** `common` (work, school and personal Microsoft accounts), `consumers`, or a tenant id. */
  MICROSOFT_TENANT: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9.-]{1,100}$/, "must be common, consumers, organizations or a tenant id")
    .default("common"),
  /** One base URL per provider host; the defaults are the live hosts. */
  INSTAGRAM_WWW_URL: url.default("https://www.instagram.com"),
  INSTAGRAM_API_URL: url.default("https://api.instagram.com"),
  INSTAGRAM_GRAPH_URL: url.default("https://graph.instagram.com"),
  FACEBOOK_WWW_URL: url.default("https://www.facebook.com"),
  FACEBOOK_GRAPH_URL: url.default("https://graph.facebook.com"),
  GOOGLE_ACCOUNTS_URL: url.default("https://accounts.google.com"),
  GOOGLE_OAUTH2_URL: url.default("https://oauth2.googleapis.com"),
  GOOGLE_OPENID_URL: url.default("https://openidconnect.googleapis.com"),
  GOOGLE_APIS_URL: url.default("https://www.googleapis.com"),
  DROPBOX_WWW_URL: url.default("https://www.dropbox.com"),
  DROPBOX_API_URL: url.default("https://api.dropboxapi.com"),
  DROPBOX_CONTENT_URL: url.default("https://content.dropboxapi.com"),
  MICROSOFT_LOGIN_URL: url.default("https://login.microsoftonline.com"),
  MICROSOFT_GRAPH_URL: url.default("https://graph.microsoft.com"),
  GRAPH_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d+$/, "must look like v25.0")
    .default("v25.0"),
};

type ProviderEnv = z.infer<z.ZodObject<typeof providerEnv>>;

/** Credentials and base URLs of the OAuth providers; sandbox mode swaps the whole object. */
export interface ProviderSettings {
  instagram: {
    clientId: string | undefined;
    clientSecret: string | undefined;
    wwwUrl: string;
    apiUrl: string;
    graphUrl: string;
  };
  facebook: {
    appId: string | undefined;
    appSecret: string | undefined;
    wwwUrl: string;
    graphUrl: string;
  };
  google: {
    clientId: string | undefined;
    clientSecret: string | undefined;
    accountsUrl: string;
    oauth2Url: string;
    openidUrl: string;
    apisUrl: string;
  };
  /** Dropbox: the consent page, the API and content hosts (an app-folder app). */
  dropbox: {
    appKey: string | null;
    appSecret: string | null;
    wwwUrl: string;
    apiUrl: string;
    contentUrl: string;
  };
  /** Microsoft identity (OneDrive's OAuth) and Microsoft Graph. */
  microsoft: {
    clientId: string | null;
    clientSecret: string | null;
    loginUrl: string;
    /** `common`, `consumers`, `organizations` or a tenant id. */
    tenant: string;
    graphUrl: string;
  };
  graphVersion: string;
}

/** Each pair complete or absent; with every pair absent, Keepsake runs in sandbox mode. */
export const PROVIDER_PAIRS = [
  ["INSTAGRAM_CLIENT_ID", "INSTAGRAM_CLIENT_SECRET"],
  ["FACEBOOK_APP_ID", "FACEBOOK_APP_SECRET"],
  ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
  ["DROPBOX_APP_KEY", "DROPBOX_APP_SECRET"],
  ["MICROSOFT_CLIENT_ID", "MICROSOFT_CLIENT_SECRET"],
] as const;

const trim = (u: string) => u.replace(/\/+$/, "");

/** The provider settings the environment gives (live mode, or sandbox mode before the swap). */
export function providerSettings(e: ProviderEnv): ProviderSettings {
  return {
    instagram: {
      clientId: e.INSTAGRAM_CLIENT_ID,
      clientSecret: e.INSTAGRAM_CLIENT_SECRET,
      wwwUrl: trim(e.INSTAGRAM_WWW_URL),
      apiUrl: trim(e.INSTAGRAM_API_URL),
      graphUrl: trim(e.INSTAGRAM_GRAPH_URL),
    },
    facebook: {
      appId: e.FACEBOOK_APP_ID,
      appSecret: e.FACEBOOK_APP_SECRET,
      wwwUrl: trim(e.FACEBOOK_WWW_URL),
      graphUrl: trim(e.FACEBOOK_GRAPH_URL),
    },
    google: {
      clientId: e.GOOGLE_CLIENT_ID,
      clientSecret: e.GOOGLE_CLIENT_SECRET,
      accountsUrl: trim(e.GOOGLE_ACCOUNTS_URL),
      oauth2Url: trim(e.GOOGLE_OAUTH2_URL),
      openidUrl: trim(e.GOOGLE_OPENID_URL),
      apisUrl: trim(e.GOOGLE_APIS_URL),
    },
    dropbox: {
      appKey: e.DROPBOX_APP_KEY ?? null,
      appSecret: e.DROPBOX_APP_SECRET ?? null,
      wwwUrl: trim(e.DROPBOX_WWW_URL),
      apiUrl: trim(e.DROPBOX_API_URL),
      contentUrl: trim(e.DROPBOX_CONTENT_URL),
    },
    microsoft: {
      clientId: e.MICROSOFT_CLIENT_ID ?? null,
      clientSecret: e.MICROSOFT_CLIENT_SECRET ?? null,
      loginUrl: trim(e.MICROSOFT_LOGIN_URL),
      tenant: e.MICROSOFT_TENANT,
      graphUrl: trim(e.MICROSOFT_GRAPH_URL),
    },
    graphVersion: e.GRAPH_API_VERSION,
  };
}

/** Provider settings pointing every host at a sandbox origin (its path-prefix layout). */
export function sandboxProviders(
  sandboxUrl: string,
  credentials: {
    instagram: { clientId: string; clientSecret: string };
    facebook: { appId: string; appSecret: string };
    google: { clientId: string; clientSecret: string };
    dropbox: { appKey: string; appSecret: string };
    microsoft: { clientId: string; clientSecret: string };
  },
  graphVersion = "v25.0",
): ProviderSettings {
  const base = trim(sandboxUrl);
  return {
    instagram: {
      ...credentials.instagram,
      wwwUrl: `${base}/www.instagram.com`,
      apiUrl: `${base}/api.instagram.com`,
      graphUrl: `${base}/graph.instagram.com`,
    },
    facebook: {
      ...credentials.facebook,
      wwwUrl: `${base}/www.facebook.com`,
      graphUrl: `${base}/graph.facebook.com`,
    },
    google: {
      ...credentials.google,
      accountsUrl: `${base}/accounts.google.com`,
      oauth2Url: `${base}/oauth2.googleapis.com`,
      openidUrl: `${base}/openidconnect.googleapis.com`,
      apisUrl: `${base}/www.googleapis.com`,
    },
    dropbox: {
      appKey: credentials.dropbox.appKey,
      appSecret: credentials.dropbox.appSecret,
      wwwUrl: `${base}/www.dropbox.com`,
      apiUrl: `${base}/api.dropboxapi.com`,
      contentUrl: `${base}/content.dropboxapi.com`,
    },
    microsoft: {
      clientId: credentials.microsoft.clientId,
      clientSecret: credentials.microsoft.clientSecret,
      loginUrl: `${base}/login.microsoftonline.com`,
      tenant: "common",
      graphUrl: `${base}/graph.microsoft.com`,
    },
    graphVersion,
  };
}

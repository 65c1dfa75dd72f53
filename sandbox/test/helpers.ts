import { afterAll, beforeAll, beforeEach } from "vitest";
import {
  SANDBOX_CREDENTIALS as C,
  type Sandbox,
  type SandboxOptions,
  startSandbox,
} from "../src/index.ts";

export const CALLBACK = "http://localhost:3000/callback";

export interface Harness {
  sb: Sandbox;
  url: string;
  /** Calls the control API; `T` describes the fields the caller reads from the answer. */
  ctl: <T = unknown>(path: string, body?: unknown, method?: string) => Promise<T>;
  get: (path: string, init?: RequestInit) => Promise<Response>;
}

export async function harness(options: SandboxOptions = {}): Promise<Harness> {
  const sb = await startSandbox({ port: 0, ...options });
  const ctl = async <T = unknown>(path: string, body?: unknown, method?: string): Promise<T> => {
    const res = await fetch(`${sb.url}/_control/${path}`, {
      method: method ?? (body === undefined ? "GET" : "POST"),
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`control ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json as T;
  };
  const get = (path: string, init?: RequestInit) =>
    fetch(path.startsWith("http") ? path : `${sb.url}${path}`, init);
  return { sb, url: sb.url, ctl, get };
}

/**
 * One sandbox for the test file: started before all tests, closed after them and reset before
 * each. The returned harness is filled in by `beforeAll`, so read it inside tests only.
 */
export function useHarness(options: SandboxOptions = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    Object.assign(h, await harness(options));
  });
  afterAll(async () => {
    await h.sb.close();
  });
  beforeEach(async () => {
    await h.ctl("reset", {});
  });
  return h;
}

/** Reads a JSON body as `T` (a description of the fields the test reads; not checked at runtime). */
export async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** Graph API (Instagram / Facebook) error body. */
export interface GraphError {
  error: {
    message: string;
    type: string;
    code: number;
    error_subcode?: number;
    is_transient?: boolean;
    fbtrace_id: string;
  };
}

/** Google API (Drive) error body. */
export interface DriveError {
  error: {
    code: number;
    message: string;
    errors: { message: string; domain: string; reason: string }[];
  };
}

/** OAuth 2.0 token endpoint error body (Google). */
export interface OAuthError {
  error: string;
  error_description?: string;
}

/** A page of a Graph API edge. */
export interface GraphPage<T> {
  data: T[];
  paging?: {
    cursors?: { before: string; after: string };
    next?: string;
    previous?: string;
  };
}

/** Instagram media fields the tests read (each present only when requested / available). */
export interface IgMediaItem {
  id: string;
  media_type?: "IMAGE" | "VIDEO" | "CAROUSEL_ALBUM";
  media_product_type?: string;
  media_url?: string;
  thumbnail_url?: string;
  like_count?: number;
  timestamp?: string;
  children?: GraphPage<IgMediaItem>;
}

export function formPost(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: "POST", redirect: "manual", body: new URLSearchParams(fields) });
}

/** Walks the Instagram consent screen and exchanges the code; returns the short-lived token. */
export async function igShortToken(h: Harness, accountId: string): Promise<string> {
  const res = await formPost(`${h.url}/www.instagram.com/oauth/authorize`, {
    client_id: C.instagram.clientId,
    redirect_uri: CALLBACK,
    response_type: "code",
    scope: "instagram_business_basic",
    state: "s1",
    account: accountId,
    decision: "allow",
  });
  const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
  const tokenRes = await formPost(`${h.url}/api.instagram.com/oauth/access_token`, {
    client_id: C.instagram.clientId,
    client_secret: C.instagram.clientSecret,
    grant_type: "authorization_code",
    redirect_uri: CALLBACK,
    code,
  });
  const body = (await tokenRes.json()) as { data: { access_token: string }[] };
  return body.data[0]!.access_token;
}

export async function igLongToken(h: Harness, accountId: string): Promise<string> {
  const short = await igShortToken(h, accountId);
  const res = await h.get(
    `/graph.instagram.com/access_token?grant_type=ig_exchange_token&client_secret=${C.instagram.clientSecret}&access_token=${short}`,
  );
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function fbUserToken(h: Harness, userId: string): Promise<string> {
  const res = await formPost(`${h.url}/www.facebook.com/v25.0/dialog/oauth`, {
    client_id: C.facebook.appId,
    redirect_uri: CALLBACK,
    response_type: "code",
    scope: "instagram_basic,pages_show_list,pages_read_engagement",
    state: "f1",
    user: userId,
    decision: "allow",
  });
  const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
  const tok = await h.get(
    `/graph.facebook.com/v25.0/oauth/access_token?client_id=${C.facebook.appId}&client_secret=${C.facebook.appSecret}&redirect_uri=${encodeURIComponent(CALLBACK)}&code=${code}`,
  );
  return ((await tok.json()) as { access_token: string }).access_token;
}

export const GOOGLE_SCOPE = "openid email https://www.googleapis.com/auth/drive.file";

/** Walks the Google consent (drive box ticked or not) and returns the redirect's code and scope. */
export async function googleCode(
  h: Harness,
  sub: string,
  drive = true,
): Promise<{ code: string; scope: string }> {
  const fields: Record<string, string> = {
    client_id: C.google.clientId,
    redirect_uri: CALLBACK,
    response_type: "code",
    scope: GOOGLE_SCOPE,
    access_type: "offline",
    prompt: "consent",
    include_granted_scopes: "true",
    state: "g1",
    authuser: sub,
    decision: "allow",
  };
  if (drive) fields.drive_file = "on";
  const res = await formPost(`${h.url}/accounts.google.com/o/oauth2/v2/auth`, fields);
  const loc = new URL(res.headers.get("location")!);
  return { code: loc.searchParams.get("code")!, scope: loc.searchParams.get("scope")! };
}

export async function googleTokens(
  h: Harness,
  sub: string,
  drive = true,
): Promise<{ access_token: string; refresh_token: string; scope: string; id_token: string }> {
  const { code } = await googleCode(h, sub, drive);
  const res = await formPost(`${h.url}/oauth2.googleapis.com/token`, {
    client_id: C.google.clientId,
    client_secret: C.google.clientSecret,
    grant_type: "authorization_code",
    redirect_uri: CALLBACK,
    code,
  });
  return (await res.json()) as {
    access_token: string;
    refresh_token: string;
    scope: string;
    id_token: string;
  };
}

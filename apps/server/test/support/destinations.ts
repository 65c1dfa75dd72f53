import { DEMO_DROPBOX, DEMO_ONEDRIVE, SANDBOX_CREDENTIALS, type Sandbox } from "@keepsake/sandbox";
import type { DropboxSettings } from "../../src/providers/dropbox/dropbox-oauth.client.ts";
import type { MicrosoftSettings } from "../../src/providers/microsoft/microsoft-oauth.client.ts";
import type { RetrySettings } from "../../src/providers/retry.ts";
import type { S3Settings } from "../../src/providers/s3/s3.client.ts";

/** The sandbox's hosts and fixed credentials for the destination clients (one prefix per host). */
export const dropboxSettings = (sandbox: Sandbox): DropboxSettings => ({
  appKey: SANDBOX_CREDENTIALS.dropbox.appKey,
  appSecret: SANDBOX_CREDENTIALS.dropbox.appSecret,
  wwwUrl: `${sandbox.url}/www.dropbox.com`,
  apiUrl: `${sandbox.url}/api.dropboxapi.com`,
  contentUrl: `${sandbox.url}/content.dropboxapi.com`,
});

export const microsoftSettings = (sandbox: Sandbox): MicrosoftSettings => ({
  clientId: SANDBOX_CREDENTIALS.microsoft.clientId,
  clientSecret: SANDBOX_CREDENTIALS.microsoft.clientSecret,
  loginUrl: `${sandbox.url}/login.microsoftonline.com`,
  tenant: "common",
  graphUrl: `${sandbox.url}/graph.microsoft.com`,
});

export const s3Settings = (sandbox: Sandbox, prefix = ""): S3Settings => ({
  endpoint: sandbox.urls.s3,
  region: SANDBOX_CREDENTIALS.s3.region,
  bucket: SANDBOX_CREDENTIALS.s3.bucket,
  prefix,
  accessKeyId: SANDBOX_CREDENTIALS.s3.accessKeyId,
  secretAccessKey: SANDBOX_CREDENTIALS.s3.secretAccessKey,
  forcePathStyle: true,
});

export const REDIRECT = "http://keepsake.test/api/oauth/destination/callback";

/** Submits a consent form as a browser would; answers the redirect's query. */
export async function consent(url: string, fields: Record<string, string>) {
  const page = new URL(url);
  const res = await fetch(`${page.origin}${page.pathname}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...Object.fromEntries(page.searchParams), ...fields }).toString(),
    redirect: "manual",
  });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`consent answered ${res.status}`);
  return new URL(location).searchParams;
}

export const dropboxAccount = DEMO_DROPBOX.jordan.accountId;
export const dropboxEmail = DEMO_DROPBOX.jordan.email;
export const onedriveUser = DEMO_ONEDRIVE.jordan.id;
export const onedriveEmail = DEMO_ONEDRIVE.jordan.email;

/** Calls the sandbox's control API. */
export async function control<T = unknown>(
  sandbox: Sandbox,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${sandbox.url}/_control/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`control ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Retries as the engine does, sleeping nowhere: the waits asked for are recorded. */
export function recordingRetry(waits: number[]): RetrySettings {
  return {
    backoff: { baseMs: 10, maxMs: 1000, attempts: 4, maxInlineWaitMs: 60_000 },
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0,
  };
}

/** Deterministic bytes. */
export function bytes(n: number, seed = 7): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 37 + seed) & 0xff;
  return b;
}

/** A source that yields `data` in pieces of `piece` bytes (as a download arrives). */
export async function* pieces(data: Uint8Array, piece = 256 * 1024): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece);
}

import { once } from "node:events";
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import { providerCallKind, providerCalls, providerErrors } from "../lib/metrics.ts";
import { CallInTransactionError, insideTransaction } from "../lib/transaction-scope.ts";
import { ProviderError, type ProviderName } from "./provider-error.ts";

/**
 * The one HTTP layer under every provider client: time limits, network failures as
 * ProviderError (never with the URL, which may carry a token), failures classified with the
 * provider's Retry-After, JSON bodies, and streamed uploads. Retrying is `retry.ts`. It refuses
 * to call out while the caller holds a database transaction (`lib/transaction-scope.ts`).
 */

export type FetchLike = typeof fetch;

/** Default time limit of one provider call. */
export const PROVIDER_TIMEOUT_MS = 20_000;

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };

/** Reads a JSON body without failing on bad JSON (null for an empty or unparsable body). */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Retry-After is either seconds or an HTTP date. */
function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The same failure, with the time the provider asked us to wait. */
function withRetryAfter(err: ProviderError, retryAfterMs: number | null): ProviderError {
  if (retryAfterMs === null) return err;
  const { status, code, subcode } = err;
  return new ProviderError(err.provider, err.kind, err.message, {
    status,
    code,
    subcode,
    retryAfterMs,
  });
}

const LABEL: Record<ProviderName, string> = {
  instagram: "Instagram",
  facebook: "Facebook",
  google: "Google",
  dropbox: "Dropbox",
  microsoft: "OneDrive",
  s3: "the S3 storage",
};

export interface SendOptions {
  provider: ProviderName;
  /** Who we could not reach, as a person reads it ("Google Drive", "the Instagram CDN"). */
  label?: string;
  fetch: FetchLike;
  timeoutMs?: number;
}

/**
 * Refuses a call while the caller holds a database transaction, naming it by the provider, the
 * method and the host and path (never the query, which may carry a token).
 */
function refuseInTransaction(
  options: Pick<SendOptions, "provider" | "label">,
  method: string,
  url: string | URL,
) {
  if (!insideTransaction()) return;
  let where = "";
  try {
    const u = new URL(url);
    where = ` ${u.host}${u.pathname.slice(0, 100)}`;
  } catch {}
  const who = options.label ?? LABEL[options.provider];
  throw new CallInTransactionError(`${who} ${method.toUpperCase()}${where}`);
}

/** The caller's signal, else a time limit (none for `timeoutMs` 0). */
function signalFor(init: RequestInit, timeoutMs: number): { signal?: AbortSignal } {
  if (init.signal) return { signal: init.signal };
  return timeoutMs > 0 ? { signal: AbortSignal.timeout(timeoutMs) } : {};
}

/** One request; a network failure or time-out becomes a `network` ProviderError. */
export async function send(
  url: string | URL,
  init: RequestInit,
  options: SendOptions,
): Promise<Response> {
  refuseInTransaction(options, init.method ?? "GET", url);
  try {
    return await options.fetch(url, {
      ...init,
      ...signalFor(init, options.timeoutMs ?? PROVIDER_TIMEOUT_MS),
    });
  } catch (err) {
    const why = err instanceof Error ? err.name : "error";
    const label = options.label ?? LABEL[options.provider];
    throw new ProviderError(options.provider, "network", `Could not reach ${label} (${why})`);
  }
}

/** A failed answer as a classified ProviderError, with its Retry-After (or `fallbackMs`). */
export async function failure(
  res: Response,
  classify: (status: number, body: unknown) => ProviderError,
  nowMs: number,
  fallbackRetryAfterMs: number | null = null,
): Promise<ProviderError> {
  const err = classify(res.status, await readJson(res));
  const hinted = parseRetryAfter(res.headers.get("retry-after"), nowMs) ?? fallbackRetryAfterMs;
  return withRetryAfter(err, hinted);
}

/** A JSON object from a successful answer, or an `unknown` failure for anything else. */
export async function jsonObject(
  res: Response,
  provider: ProviderName,
  label: string = LABEL[provider],
): Promise<Record<string, unknown>> {
  const body = await readJson(res);
  if (body === null || typeof body !== "object") {
    throw new ProviderError(provider, "unknown", `Unexpected answer from ${label}`, {
      status: res.status,
    });
  }
  return body as Record<string, unknown>;
}

/** One provider call: JSON in, JSON out, failures classified by `classify`. */
export async function requestJson(
  url: string,
  init: RequestInit,
  options: SendOptions & { classify: (status: number, body: unknown) => ProviderError },
): Promise<Record<string, unknown>> {
  const res = await send(
    url,
    {
      ...init,
      headers: { accept: "application/json", ...(init.headers as Record<string, string>) },
    },
    options,
  );
  if (!res.ok) throw await failure(res, options.classify, Date.now());
  return jsonObject(res, options.provider);
}

interface StreamInit {
  method: string;
  headers: Record<string, string>;
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  timeoutMs: number;
  /** Aborting it breaks the request off at once (a worker shutting down mid-upload). */
  signal?: AbortSignal;
}

/**
 * `send` for a streamed body: a ProviderError from the body's source passes through, any
 * other failure is a `network` ProviderError.
 */
export async function sendStream(
  url: URL,
  init: StreamInit,
  options: Omit<SendOptions, "fetch" | "timeoutMs"> & {
    /** Told whether the provider failed this request (the status page's call counts). */
    record?: (failed: boolean) => void;
  },
): Promise<Response> {
  refuseInTransaction(options, init.method, url);
  // Streamed requests (Drive's uploads) do not go through the counted fetch: counted here.
  const labels = { provider: options.provider, kind: providerCallKind(url.href, init.method) };
  providerCalls.inc(labels);
  try {
    const res = await streamRequest(url, init);
    const failed = res.status >= 500 || res.status === 429;
    if (failed) providerErrors.inc(labels);
    options.record?.(failed);
    return res;
  } catch (err) {
    // The body's source failing (the CDN download) is no failure of this provider.
    if (err instanceof ProviderError) throw err;
    providerErrors.inc(labels);
    options.record?.(true);
    const why = err instanceof Error ? err.message : "error";
    const label = options.label ?? LABEL[options.provider];
    throw new ProviderError(options.provider, "network", `Could not reach ${label} (${why})`);
  }
}

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One HTTP request whose body is written piece by piece as it is produced, answered as a fetch
 * Response. `fetch()` with a streamed request body holds the whole body in memory before it
 * sends it; this holds one piece at a time (and waits for the socket to drain). A failure of
 * the body's source rejects with that failure, not as a network error.
 */
export function streamRequest(url: URL, init: StreamInit): Promise<Response> {
  const mod = url.protocol === "https:" ? https : http;
  const agent = agents[url.protocol as keyof typeof agents];
  return new Promise<Response>((resolve, reject) => {
    let sourceError: unknown = null;
    const req = mod.request(
      url,
      { method: init.method, headers: init.headers, agent, timeout: init.timeoutMs },
      (res) => {
        const headers = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
          headers.append(res.rawHeaders[i] as string, res.rawHeaders[i + 1] as string);
        }
        const status = res.statusCode ?? 500;
        if (NULL_BODY.has(status)) res.resume();
        const body = NULL_BODY.has(status)
          ? null
          : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
        resolve(new Response(body, { status, headers }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("TimeoutError")));
    const { signal } = init;
    const abort = () => req.destroy(new Error("AbortError"));
    if (signal?.aborted) abort();
    else signal?.addEventListener("abort", abort, { once: true });
    req.on("close", () => signal?.removeEventListener("abort", abort));
    req.on("error", (err) => reject(sourceError ?? err));
    (async () => {
      for await (const piece of init.body) {
        if (req.destroyed) return;
        if (!req.write(piece)) await once(req, "drain");
      }
      req.end();
    })().catch((err) => {
      sourceError = err;
      req.destroy(err instanceof Error ? err : new Error(String(err)));
    });
  });
}

/**
 * What went wrong talking to a provider, classified the way callers act on it:
 * token_invalid → the user must reconnect; throttled/transient/network → retry later;
 * permission → the grant lacks a permission; quota → the user's storage is full;
 * oauth → a code or grant was refused; not_found; unknown.
 */
export type ProviderErrorKind =
  | "token_invalid"
  | "throttled"
  | "transient"
  | "network"
  | "permission"
  | "quota"
  | "oauth"
  | "not_found"
  | "unknown";

export type ProviderName = "instagram" | "facebook" | "google";

export class ProviderError extends Error {
  readonly provider: ProviderName;
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  readonly code: number | string | null;
  readonly subcode: number | null;
  constructor(
    provider: ProviderName,
    kind: ProviderErrorKind,
    message: string,
    details: {
      status?: number | null;
      code?: number | string | null;
      subcode?: number | null;
    } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    this.status = details.status ?? null;
    this.code = details.code ?? null;
    this.subcode = details.subcode ?? null;
  }
}

/** Instagram (through either Graph host) no longer accepts the account's token: reconnect. */
export const isInstagramTokenInvalid = (err: unknown): boolean =>
  err instanceof ProviderError &&
  (err.provider === "instagram" || err.provider === "facebook") &&
  err.kind === "token_invalid";

/** Graph API (Instagram and Facebook) errors are classified by `code`, not by HTTP status. */
export function classifyGraphCode(code: number | undefined): ProviderErrorKind {
  if (code === undefined) return "unknown";
  if (code === 190 || code === 102) return "token_invalid";
  if (code === 4 || code === 17 || code === 32 || code === 613 || code === 80002)
    return "throttled";
  if (code === 10 || (code >= 200 && code <= 299)) return "permission";
  if (code === 1 || code === 2) return "transient";
  if (code === 100) return "oauth";
  return "unknown";
}

const num = (v: unknown): number | undefined =>
  typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined;

/** The Graph error shape `{"error":{"message","type","code","error_subcode"}}`, and the
 * token endpoint's `{"error_type","code","error_message"}`. */
export function graphError(provider: ProviderName, status: number, body: unknown): ProviderError {
  const b = (body ?? {}) as Record<string, unknown>;
  const e = b.error;
  if (e && typeof e === "object") {
    const err = e as Record<string, unknown>;
    const code = num(err.code);
    return new ProviderError(
      provider,
      classifyGraphCode(code),
      typeof err.message === "string" ? err.message : `HTTP ${status}`,
      { status, code: code ?? null, subcode: num(err.error_subcode) ?? null },
    );
  }
  if (typeof b.error_message === "string") {
    return new ProviderError(provider, "oauth", b.error_message, {
      status,
      code: num(b.code) ?? null,
    });
  }
  return new ProviderError(provider, status >= 500 ? "transient" : "unknown", `HTTP ${status}`, {
    status,
  });
}

/** Google OAuth errors `{"error":"invalid_grant"}` and API errors `{"error":{"errors":[{"reason"}]}}`. */
export function googleError(status: number, body: unknown): ProviderError {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.error === "string") {
    const kind: ProviderErrorKind =
      b.error === "invalid_grant" || b.error === "invalid_token"
        ? "token_invalid"
        : b.error === "invalid_client" || b.error === "unauthorized_client"
          ? "oauth"
          : status >= 500
            ? "transient"
            : "oauth";
    const description = typeof b.error_description === "string" ? `: ${b.error_description}` : "";
    return new ProviderError("google", kind, `${b.error}${description}`, {
      status,
      code: b.error,
    });
  }
  if (b.error && typeof b.error === "object") {
    const err = b.error as { message?: unknown; errors?: { reason?: unknown }[] };
    const reason = typeof err.errors?.[0]?.reason === "string" ? err.errors[0].reason : undefined;
    const kind: ProviderErrorKind =
      reason === "userRateLimitExceeded" || reason === "rateLimitExceeded"
        ? "throttled"
        : reason === "storageQuotaExceeded"
          ? "quota"
          : reason === "authError" || status === 401
            ? "token_invalid"
            : reason === "notFound" || status === 404
              ? "not_found"
              : reason === "insufficientPermissions"
                ? "permission"
                : status >= 500
                  ? "transient"
                  : "unknown";
    return new ProviderError(
      "google",
      kind,
      typeof err.message === "string" ? err.message : `HTTP ${status}`,
      { status, code: reason ?? null },
    );
  }
  return new ProviderError("google", status >= 500 ? "transient" : "unknown", `HTTP ${status}`, {
    status,
  });
}

export type FetchLike = typeof fetch;

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

/** Default time limit of one provider call. */
export const PROVIDER_TIMEOUT_MS = 20_000;

/**
 * One provider call: JSON in, JSON out. Never puts the URL (which may carry a token) into an
 * error message. Failures become ProviderError through `toError`.
 */
export async function requestJson(
  provider: ProviderName,
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  toError: (status: number, body: unknown) => ProviderError,
): Promise<unknown> {
  let res: Response;
  try {
    res = await fetchImpl(url, {
      ...init,
      signal: init.signal ?? AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      headers: { accept: "application/json", ...(init.headers as Record<string, string>) },
    });
  } catch (err) {
    const why = err instanceof Error ? err.name : "error";
    throw new ProviderError(provider, "network", `Could not reach ${provider} (${why})`);
  }
  const body = await readJson(res);
  if (!res.ok) throw toError(res.status, body);
  if (body === null || typeof body !== "object") {
    throw new ProviderError(provider, "unknown", `Unexpected answer from ${provider}`, {
      status: res.status,
    });
  }
  return body;
}

export const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
export const FORM_HEADERS = { "content-type": "application/x-www-form-urlencoded" };

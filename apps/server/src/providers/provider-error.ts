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

export type ProviderName = "instagram" | "facebook" | "google" | "dropbox" | "microsoft" | "s3";

export class ProviderError extends Error {
  readonly provider: ProviderName;
  readonly kind: ProviderErrorKind;
  readonly status: number | null;
  readonly code: number | string | null;
  readonly subcode: number | null;
  /** When the provider said to try again (Retry-After, Graph's regain time), in ms. */
  readonly retryAfterMs: number | null;
  constructor(
    provider: ProviderName,
    kind: ProviderErrorKind,
    message: string,
    details: {
      status?: number | null;
      code?: number | string | null;
      subcode?: number | null;
      retryAfterMs?: number | null;
    } = {},
  ) {
    super(message);
    this.name = "ProviderError";
    this.provider = provider;
    this.kind = kind;
    this.status = details.status ?? null;
    this.code = details.code ?? null;
    this.subcode = details.subcode ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
  }
}

/** Kinds worth trying again after a pause. */
export const isRetryable = (err: unknown): err is ProviderError =>
  err instanceof ProviderError &&
  (err.kind === "throttled" || err.kind === "transient" || err.kind === "network");

export const retryAfterOf = (err: unknown): number | null =>
  err instanceof ProviderError ? err.retryAfterMs : null;

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

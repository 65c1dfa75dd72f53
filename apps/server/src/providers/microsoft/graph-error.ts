import { ProviderError, type ProviderErrorKind } from "../provider-error.ts";

/**
 * Graph's error shape `{"error":{"code","message"}}`: 401 refresh (then reconnect), 429 and
 * 503 throttled with Retry-After, 507 (`quotaLimitReached`, `insufficientStorage`) full.
 */
export function graphApiError(status: number, body: unknown): ProviderError {
  const e = ((body ?? {}) as { error?: { code?: unknown; message?: unknown } }).error ?? {};
  const code = typeof e.code === "string" ? e.code : `http_${status}`;
  const message = typeof e.message === "string" ? e.message : `HTTP ${status}`;
  const kind: ProviderErrorKind =
    status === 401
      ? "token_invalid"
      : status === 429 || status === 503 || code === "activityLimitReached"
        ? "throttled"
        : status === 507 || code === "quotaLimitReached" || code === "insufficientStorage"
          ? "quota"
          : status === 404 || code === "itemNotFound"
            ? "not_found"
            : status === 403 || code === "accessDenied"
              ? "permission"
              : status >= 500
                ? "transient"
                : "unknown";
  return new ProviderError("microsoft", kind, `OneDrive: ${message}`, {
    status,
    code: status === 409 ? "conflict" : code,
  });
}

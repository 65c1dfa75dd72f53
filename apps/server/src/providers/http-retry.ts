import { ProviderError, type ProviderErrorKind, type ProviderName } from "./provider-error.ts";

/** A provider error that also says when to try again (Retry-After, Graph regain time). */
export class RetryableProviderError extends ProviderError {
  readonly retryAfterMs: number | null;
  constructor(
    provider: ProviderName,
    kind: ProviderErrorKind,
    message: string,
    details: { status?: number | null; code?: number | string | null; subcode?: number | null },
    retryAfterMs: number | null,
  ) {
    super(provider, kind, message, details);
    this.name = "RetryableProviderError";
    this.retryAfterMs = retryAfterMs;
  }
}

export const retryAfterOf = (err: unknown): number | null =>
  err instanceof RetryableProviderError ? err.retryAfterMs : null;

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Kinds worth trying again after a pause. */
export const isRetryable = (err: unknown): err is ProviderError =>
  err instanceof ProviderError &&
  (err.kind === "throttled" || err.kind === "transient" || err.kind === "network");

/** Adds a retry hint to a classified provider error. */
export function withRetryAfter(err: ProviderError, retryAfterMs: number | null): ProviderError {
  if (retryAfterMs === null) return err;
  return new RetryableProviderError(
    err.provider,
    err.kind,
    err.message,
    { status: err.status, code: err.code, subcode: err.subcode },
    retryAfterMs,
  );
}

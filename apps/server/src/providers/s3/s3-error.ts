import { ProviderError, type ProviderErrorKind } from "../provider-error.ts";

/** What the AWS SDK's failures carry: the error code as `name`, the HTTP status and headers. */
interface SdkFailure {
  name?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

const THROTTLED = new Set([
  "SlowDown",
  "TooManyRequests",
  "ThrottlingException",
  "RequestLimitExceeded",
]);
const CREDENTIALS = new Set([
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "AccessDenied",
  "ExpiredToken",
  "InvalidToken",
  "InvalidClientTokenId",
  "Unauthorized",
]);
const FULL = new Set([
  "XMinioStorageFull",
  "QuotaExceeded",
  "StorageQuotaExceeded",
  "InsufficientStorage",
]);

/**
 * An S3 (or R2, B2, MinIO) failure as a ProviderError: `SlowDown`/503/429 throttled (with
 * Retry-After when sent), refused credentials (`InvalidAccessKeyId`, `SignatureDoesNotMatch`,
 * `AccessDenied`) token_invalid (the keys were revoked or changed: the user must enter new
 * ones), a full store (MinIO's `XMinioStorageFull`, 507) quota, `PreconditionFailed` (a
 * conditional create found an object) code `exists`, `BadDigest` (bytes changed on the way)
 * transient, `NoSuchBucket` permission, 5xx transient, no answer at all network; an endpoint
 * refused for its address (s3-endpoint.ts) permission, code `endpoint_not_public`.
 */
export function s3Error(err: unknown, nowMs: number = Date.now()): ProviderError {
  if (err instanceof ProviderError) return err;
  if ((err as { code?: unknown } | null)?.code === "ENOTPUBLIC")
    return new ProviderError("s3", "permission", (err as Error).message, {
      code: "endpoint_not_public",
    });
  const e = (err ?? {}) as SdkFailure;
  const status = e.$metadata?.httpStatusCode ?? null;
  const name = typeof e.name === "string" ? e.name : "Error";
  if (status === null) {
    return new ProviderError("s3", "network", `Could not reach the S3 storage (${name})`);
  }
  const kind: ProviderErrorKind =
    THROTTLED.has(name) || status === 429 || status === 503
      ? "throttled"
      : CREDENTIALS.has(name) || status === 401 || status === 403
        ? "token_invalid"
        : FULL.has(name) || status === 507
          ? "quota"
          : name === "NoSuchBucket"
            ? "permission"
            : name === "NoSuchKey" ||
                name === "NotFound" ||
                name === "NoSuchUpload" ||
                status === 404
              ? "not_found"
              : name === "BadDigest" || name === "RequestTimeout" || status >= 500
                ? "transient"
                : "unknown";
  const code = name === "PreconditionFailed" || status === 412 ? "exists" : name;
  const message = typeof e.message === "string" && e.message ? e.message : `HTTP ${status}`;
  const header = e.$response?.headers?.["retry-after"];
  let retryAfterMs: number | null = null;
  if (header && /^\d+$/.test(header.trim())) retryAfterMs = Number(header.trim()) * 1000;
  else if (header && !Number.isNaN(Date.parse(header)))
    retryAfterMs = Math.max(0, Date.parse(header) - nowMs);
  return new ProviderError("s3", kind, `S3 storage: ${name}: ${message}`.slice(0, 300), {
    status,
    code,
    retryAfterMs,
  });
}

import { ProviderError, type ProviderErrorKind } from "../provider-error.ts";

/**
 * Dropbox's failures as ProviderErrors. Dropbox answers 401 for the token
 * (`{"error":{".tag":"expired_access_token"}}`: refresh it; `invalid_access_token`: the grant is
 * gone), 429 for rate limits (`too_many_requests`, `too_many_write_operations`, with
 * Retry-After), 409 for a route's own error (`error_summary` like `path/insufficient_space/..`),
 * 400 with plain text for a call it cannot read, and the token endpoint OAuth's
 * `{"error":"invalid_grant"}`. `code` is the tag that decided (`expired_access_token`,
 * `insufficient_space`, `conflict`, `incorrect_offset`, `content_hash_mismatch`, `not_found`…).
 */
export function dropboxError(status: number, body: unknown): ProviderError {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.error === "string") {
    // The token endpoint (OAuth 2).
    const kind: ProviderErrorKind =
      b.error === "invalid_grant" ? "token_invalid" : status >= 500 ? "transient" : "oauth";
    const description = typeof b.error_description === "string" ? `: ${b.error_description}` : "";
    return new ProviderError("dropbox", kind, `Dropbox: ${b.error}${description}`, {
      status,
      code: b.error,
    });
  }
  const summary = typeof b.error_summary === "string" ? b.error_summary : "";
  const tags = summary.split("/").filter((t) => t && t !== ".");
  const error = (b.error ?? {}) as Record<string, unknown>;
  const has = (tag: string) => tags.includes(tag) || error[".tag"] === tag;
  const fail = (kind: ProviderErrorKind, code: string, message: string) =>
    new ProviderError("dropbox", kind, message, {
      status,
      code,
      // Dropbox also says how long to wait in the body of a 429.
      retryAfterMs: typeof error.retry_after === "number" ? error.retry_after * 1000 : null,
    });
  if (status === 401) {
    const tag = typeof error[".tag"] === "string" ? error[".tag"] : (tags[0] ?? "invalid");
    return fail("token_invalid", tag, `Dropbox refused the access token (${tag})`);
  }
  if (status === 429) {
    const tag = has("too_many_write_operations")
      ? "too_many_write_operations"
      : "too_many_requests";
    return fail("throttled", tag, `Dropbox asks to slow down (${tag})`);
  }
  if (has("insufficient_space"))
    return fail("quota", "insufficient_space", "The Dropbox is full (insufficient_space)");
  if (has("content_hash_mismatch"))
    return fail(
      "transient",
      "content_hash_mismatch",
      "Dropbox received other bytes than were sent (content_hash)",
    );
  if (has("incorrect_offset"))
    return fail(
      "unknown",
      "incorrect_offset",
      "Dropbox holds another offset of the upload session",
    );
  if (has("not_found"))
    return fail("not_found", "not_found", `Dropbox has no such file or session (${summary})`);
  if (has("conflict"))
    return fail("unknown", "conflict", `Dropbox: a file is in the way (${summary})`);
  if (has("no_write_permission") || has("disallowed_name") || status === 403)
    return fail("permission", tags[0] ?? "forbidden", `Dropbox refused the write (${summary})`);
  if (status >= 500) return fail("transient", `http_${status}`, `Dropbox answered HTTP ${status}`);
  const text = typeof body === "string" ? body.slice(0, 200) : summary || `HTTP ${status}`;
  return fail("unknown", tags[0] ?? `http_${status}`, `Dropbox: ${text}`);
}

/** The offset a session holds, from an `incorrect_offset` failure (append or finish). */
export function correctOffsetOf(body: unknown): number | null {
  const error = ((body ?? {}) as { error?: Record<string, unknown> }).error ?? {};
  const inner = (error.lookup_failed ?? error) as Record<string, unknown>;
  return typeof inner.correct_offset === "number" ? inner.correct_offset : null;
}

import { createHmac, timingSafeEqual } from "node:crypto";

/** How old a signed request may be, and how far ahead of our clock (seconds). */
const MAX_AGE_SECONDS = 60 * 60;
const MAX_SKEW_SECONDS = 5 * 60;

export interface SignedRequest {
  /** The Instagram user (Instagram Login) or the app-scoped Facebook user (Facebook Login). */
  userId: string;
  issuedAt: number;
}

/**
 * Meta's `signed_request`: `<base64url HMAC-SHA256 of the payload part>.<base64url JSON>`, signed
 * with the app secret. Answers null for anything forged, malformed, of another algorithm, without
 * a user, or issued more than an hour ago (a replayed request).
 */
export function verifySignedRequest(
  signed: unknown,
  appSecret: string,
  now: Date,
): SignedRequest | null {
  if (typeof signed !== "string" || signed.length > 8192) return null;
  const [sig, payload, extra] = signed.split(".");
  if (!sig || !payload || extra !== undefined) return null;
  const expected = createHmac("sha256", appSecret).update(payload).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  if (String(data.algorithm).toUpperCase() !== "HMAC-SHA256") return null;
  const userId =
    typeof data.user_id === "string" || typeof data.user_id === "number"
      ? String(data.user_id)
      : null;
  const issuedAt = typeof data.issued_at === "number" ? data.issued_at : null;
  if (!userId || issuedAt === null) return null;
  const nowSeconds = now.getTime() / 1000;
  if (issuedAt < nowSeconds - MAX_AGE_SECONDS || issuedAt > nowSeconds + MAX_SKEW_SECONDS) {
    return null;
  }
  return { userId, issuedAt };
}

import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The token of an unsubscribe link: who (recipient) and what (category), signed with a key
 * derived from the server's secret, so the link works without signing in and cannot be forged
 * for someone else. It never expires: an old e-mail's link still works.
 */
export function unsubscribeTokens(secret: Uint8Array) {
  const key = createHmac("sha256", secret).update("keepsake mail unsubscribe v1").digest();
  const sign = (payload: string) =>
    createHmac("sha256", key).update(payload).digest("base64url").slice(0, 32);
  return {
    sign(recipient: string, category: string): string {
      const payload = Buffer.from(JSON.stringify([recipient, category])).toString("base64url");
      return `${payload}.${sign(payload)}`;
    },
    /** The recipient and category, or null when the token is not one we signed. */
    open(token: string): { recipient: string; category: string } | null {
      const [payload, signature] = token.split(".");
      if (!payload || !signature) return null;
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      try {
        const [recipient, category] = JSON.parse(Buffer.from(payload, "base64url").toString());
        if (typeof recipient !== "string" || typeof category !== "string") return null;
        return { recipient, category };
      } catch {
        return null;
      }
    },
  };
}

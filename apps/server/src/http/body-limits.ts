/**
 * Request body budgets (issue 35). Every route reads at most `BODY_LIMIT_BYTES` (16 KiB by
 * default: a sign-in, a profile, a setting) unless it is named here; a larger body answers 413
 * before it is read (by its Content-Length) or as soon as it passes the limit. The import plan's
 * limit is `IMPORT_PLAN_MAX_BYTES` (contracts); an import's media file streams to Drive, unbuffered.
 */
export const BODY_LIMITS = {
  /** A contact message: 5,000 characters, each up to 6 bytes of JSON (`\uXXXX`), and its fields. */
  contact: 64 * 1024,
  /** An administrator's reply: 10,000 characters, each up to 6 bytes of JSON. */
  adminReply: 128 * 1024,
  /** A Stripe event, read raw for its signature (an invoice with many lines runs to tens of KB). */
  stripeWebhook: 1024 * 1024,
} as const;

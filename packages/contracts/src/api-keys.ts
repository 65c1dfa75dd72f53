import { z } from "zod";

/** API keys (Settings → API keys) and the shapes of the public API under `/api/v1`. */

export const API_KEY_PREFIX = "ks_live_";
/** How many live (not revoked) keys one user may hold. */
export const MAX_API_KEYS = 10;
/** Requests one key may make per minute on `/api/v1`. */
export const API_RATE_LIMIT_PER_MINUTE = 60;

export const apiKeyMessages = {
  noAccess: "API access is included in the Pro and Agency plans. Upgrade to create API keys.",
  /** A key whose owner moved to a plan without API access. */
  planLacksAccess:
    "This API key's plan no longer includes API access (Pro and Agency plans do). Upgrade the plan to use the key again.",
  limitReached: `You can have at most ${MAX_API_KEYS} API keys. Revoke one to create another.`,
  notFound: "API key not found",
  missing: "Missing API key: send it as 'Authorization: Bearer ks_live_…'",
  invalid: "Invalid or revoked API key",
  rateLimited: (seconds: number) => `Rate limit exceeded. Try again in ${seconds} second(s).`,
  idempotencyMismatch: "This Idempotency-Key was already used with a different request",
  revoked: "API key revoked",
} as const;

export const createApiKeyRequest = z.object({
  name: z
    .string({ error: "name is required" })
    .trim()
    .min(1, { error: "name is required" })
    .max(100, { error: "name must be at most 100 characters" }),
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequest>;

/** A key as listed: never the key itself, only its first characters. */
export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** The key's first characters, e.g. `ks_live_AbC1`, to tell keys apart. */
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof apiKey>;

export const apiKeysResponse = z.object({
  keys: z.array(apiKey),
  /** Whether the user's plan includes API access. */
  api_access: z.boolean(),
  limit: z.number().int(),
});
export type ApiKeysResponse = z.infer<typeof apiKeysResponse>;

/** The answer to creating a key: the only time the full key is shown. */
export const createdApiKey = apiKey.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKey>;

export const revokeApiKeyResponse = z.object({ message: z.string() });

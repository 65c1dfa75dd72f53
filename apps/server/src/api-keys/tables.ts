/**
 * The tables the api-keys area owns: API keys, the idempotency keys of /api/v1 writes, rate-limit windows.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 */
export const ownedTables = ["api_keys", "api_idempotency_keys", "api_rate_windows"] as const;

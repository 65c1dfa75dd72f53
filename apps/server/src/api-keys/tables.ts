import type { ColumnType, Generated, Selectable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the api-keys area owns: API keys, the idempotency keys of /api/v1 writes, rate-limit
 * windows (migrations 0900, 0996).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "api_keys",
  "api_idempotency_keys",
  "api_rate_windows",
] as const satisfies readonly (keyof ApiKeysTables)[];

export interface ApiKeysTables {
  api_keys: ApiKeysTable;
  api_idempotency_keys: ApiIdempotencyKeysTable;
  api_rate_windows: ApiRateWindowsTable;
}

/** Tables of the public API (migrations 0900, 0996). */
export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  prefix: string;
  /** SHA-256 of the key, hex. */
  key_hash: string;
  created_at: GeneratedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

export interface ApiIdempotencyKeysTable {
  user_id: string;
  idempotency_key: string;
  fingerprint: string;
  status_code: number;
  /** jsonb: written as JSON text. */
  response: ColumnType<NonNullable<unknown>, string, string>;
  created_at: GeneratedTimestamp;
}

/** Requests per key and one-minute window (migration 0996). */
export interface ApiRateWindowsTable {
  key_id: string;
  window_start: Timestamp;
  hits: number;
}

export type ApiKeyRow = Selectable<ApiKeysTable>;

import type { ColumnType, Generated, Selectable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";

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
  response: ColumnType<unknown, string, string>;
  created_at: GeneratedTimestamp;
}

/** Requests per key and one-minute window (migration 0996). */
export interface ApiRateWindowsTable {
  key_id: string;
  window_start: Timestamp;
  hits: number;
}

export interface ApiTables {
  api_keys: ApiKeysTable;
  api_idempotency_keys: ApiIdempotencyKeysTable;
  api_rate_windows: ApiRateWindowsTable;
}

export type ApiKeyRow = Selectable<ApiKeysTable>;

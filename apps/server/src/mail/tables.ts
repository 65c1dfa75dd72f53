import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the mail area owns: the outbox (one row per message, sent exactly once) and each
 * recipient's choices per category (unsubscribe, Settings → Notifications; migration 1000).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "mail_outbox",
  "mail_preferences",
] as const satisfies readonly (keyof MailTables)[];

export interface MailTables {
  mail_outbox: MailOutboxTable;
  mail_preferences: MailPreferencesTable;
}

export type MailStatus = "queued" | "sending" | "sent" | "failed";

export interface MailOutboxTable {
  id: Generated<string>;
  idempotency_key: string;
  category: string;
  template: string;
  recipient: string;
  user_id: string | null;
  to_address: string;
  subject: string;
  /** The template data sealed (`lib/crypto.ts`) as a JSON string; null once sent or failed. */
  data: unknown;
  message_id: string;
  /** The hourly cap an anonymous request's mail counts against (migration 1092). */
  cap_group: ColumnType<string | null, string | null | undefined, string | null>;
  status: Generated<MailStatus>;
  phase: "connecting" | "data" | null;
  attempts: Generated<number>;
  lease_until: Timestamp | null;
  next_attempt_at: Timestamp;
  last_error: string | null;
  smtp_response: string | null;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
  sent_at: Timestamp | null;
}

export interface MailPreferencesTable {
  recipient: string;
  category: string;
  enabled: boolean;
  updated_at: GeneratedTimestamp;
}

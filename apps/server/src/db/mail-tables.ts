import type { ColumnType, Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";

/** Table types of the mail area (migration 1000) and the account mails of auth (1001). */

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

export interface AccountTokensTable {
  id: Generated<string>;
  user_id: string;
  purpose: "password_reset" | "verify_email";
  token_hash: string;
  email: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface AccountMailRequestsTable {
  id: Generated<string>;
  kind: string;
  email: string;
  ip: string;
  created_at: Timestamp;
}

export interface MailTables {
  mail_outbox: MailOutboxTable;
  mail_preferences: MailPreferencesTable;
  account_tokens: AccountTokensTable;
  account_mail_requests: AccountMailRequestsTable;
}

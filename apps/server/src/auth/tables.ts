import type { SubscriptionTier } from "@keepsake/contracts";
import type { Generated, Insertable, Selectable, Updateable } from "kysely";
import type { GeneratedTimestamp, OptionalTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the auth area owns: Keepsake's users (sign-up, log-in, profile flags), their
 * sessions and failed log-ins, and the account mails' tokens and requests (migration 1001).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "users",
  "sessions",
  "login_failures",
  "account_tokens",
  "account_mail_requests",
] as const satisfies readonly (keyof AuthTables)[];

export interface AuthTables {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  account_tokens: AccountTokensTable;
  account_mail_requests: AccountMailRequestsTable;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  full_name: string | null;
  password_hash: string;
  is_admin: Generated<boolean>;
  is_active: Generated<boolean>;
  subscription_tier: Generated<SubscriptionTier>;
  /** When the user proved the address (null: not yet; migration 1001). */
  email_verified_at: OptionalTimestamp;
  created_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface SessionsTable {
  id: Generated<string>;
  user_id: string;
  created_at: GeneratedTimestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  user_agent: string | null;
  ip: string | null;
}

export interface LoginFailuresTable {
  id: Generated<number>;
  email: string;
  ip: string;
  created_at: GeneratedTimestamp;
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
  id: Generated<number>;
  kind: string;
  email: string;
  ip: string;
  created_at: Timestamp;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;

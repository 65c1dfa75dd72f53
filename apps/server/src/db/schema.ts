import type { SubscriptionTier } from "@keepsake/contracts";
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from "kysely";
import type { AdminTables } from "./admin-tables.ts";
import type { ApiTables } from "./api-tables.ts";
import type { ArchiveTables } from "./archive-tables.ts";
import type { BillingTables } from "./billing-tables.ts";
import type { GeneratedTimestamp, Timestamp } from "./columns.ts";
import type { CommentsTables } from "./comments-tables.ts";
import type { ImportTables } from "./import-tables.ts";
import type { MailTables } from "./mail-tables.ts";
import type { NotificationTables } from "./notification-tables.ts";
import type { SyncTables } from "./sync-tables.ts";

export type { GeneratedTimestamp, Timestamp } from "./columns.ts";

export interface UsersTable {
  id: Generated<string>;
  email: string;
  full_name: string | null;
  password_hash: string;
  is_admin: Generated<boolean>;
  is_active: Generated<boolean>;
  subscription_tier: Generated<SubscriptionTier>;
  /** When the user proved the address (null: not yet; migration 1001). */
  email_verified_at: ColumnType<
    Date | null,
    Date | string | null | undefined,
    Date | string | null
  >;
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
  id: Generated<string>;
  email: string;
  ip: string;
  created_at: GeneratedTimestamp;
}

export interface OAuthStatesTable {
  id: Generated<string>;
  user_id: string;
  provider: "instagram" | "facebook" | "google";
  account_type: string | null;
  /** Why a re-consent was started (migration 1095): "comments" or "stories"; null to connect. */
  purpose: string | null;
  /** The account that re-consent is for. */
  purpose_username: string | null;
  created_at: GeneratedTimestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export type ConnectionRowStatus = "active" | "needs_reconnection";

export interface InstagramAccountsTable {
  id: Generated<string>;
  user_id: string;
  instagram_user_id: string;
  connected_via: "instagram" | "facebook";
  facebook_page_id: string | null;
  /** The app-scoped user Meta's callbacks name: Instagram's (Instagram Login) or Facebook's (1150). */
  meta_user_id: string | null;
  username: string;
  display_name: string | null;
  account_type: string | null;
  profile_picture_url: string | null;
  followers_count: Generated<number>;
  follows_count: Generated<number>;
  media_count: Generated<number>;
  access_token_encrypted: string;
  token_issued_at: Timestamp;
  token_expires_at: Timestamp | null;
  status: Generated<ConnectionRowStatus>;
  status_reason: string | null;
  last_validated_at: Timestamp | null;
  paused_by_plan: Generated<boolean>;
  connected_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

export interface GoogleConnectionsTable {
  id: Generated<string>;
  user_id: string;
  google_sub: string;
  google_email: string;
  scopes: string;
  refresh_token_encrypted: string;
  access_token_encrypted: string | null;
  access_token_expires_at: Timestamp | null;
  root_folder_id: string | null;
  status: Generated<ConnectionRowStatus>;
  status_reason: string | null;
  last_validated_at: Timestamp | null;
  connected_at: GeneratedTimestamp;
  updated_at: GeneratedTimestamp;
}

/** A data-deletion request from Meta and what it erased (1150); nothing names the person. */
export interface DataDeletionRequestsTable {
  confirmation_code: string;
  provider: "instagram" | "facebook";
  accounts_erased: number;
  requested_at: Timestamp;
  completed_at: Timestamp;
}

export interface Database
  extends SyncTables,
    AdminTables,
    BillingTables,
    ApiTables,
    ImportTables,
    ArchiveTables,
    CommentsTables,
    MailTables,
    NotificationTables {
  users: UsersTable;
  sessions: SessionsTable;
  login_failures: LoginFailuresTable;
  oauth_states: OAuthStatesTable;
  instagram_accounts: InstagramAccountsTable;
  google_connections: GoogleConnectionsTable;
  data_deletion_requests: DataDeletionRequestsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type OAuthStateRow = Selectable<OAuthStatesTable>;
export type InstagramAccountRow = Selectable<InstagramAccountsTable>;
export type NewInstagramAccount = Insertable<InstagramAccountsTable>;
export type GoogleConnectionRow = Selectable<GoogleConnectionsTable>;
export type NewGoogleConnection = Insertable<GoogleConnectionsTable>;

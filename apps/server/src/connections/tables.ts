import type { DestinationKind } from "@keepsake/contracts";
import type { Generated, Insertable, Selectable, Updateable } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the connections area owns: The Instagram accounts and the Google Drive connection
 * of each user, OAuth states, and Meta's data-deletion requests.
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "oauth_states",
  "instagram_accounts",
  "google_connections",
  "destination_connections",
  "data_deletion_requests",
] as const satisfies readonly (keyof ConnectionsTables)[];

export interface ConnectionsTables {
  oauth_states: OAuthStatesTable;
  instagram_accounts: InstagramAccountsTable;
  google_connections: GoogleConnectionsTable;
  destination_connections: DestinationConnectionsTable;
  data_deletion_requests: DataDeletionRequestsTable;
}

export interface OAuthStatesTable {
  id: Generated<string>;
  user_id: string;
  provider: "instagram" | "facebook" | "google" | "dropbox" | "onedrive";
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
  /** Where its backups go (migration 1200); Google Drive unless the user chose another. */
  destination: Generated<DestinationKind>;
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

/**
 * A Dropbox, OneDrive or S3-compatible destination of a user (migration 1200). Dropbox and
 * OneDrive: `credentials_encrypted` seals the refresh token, the access token is kept sealed
 * with its expiry. S3: `credentials_encrypted` seals the settings with the secret key.
 */
export interface DestinationConnectionsTable {
  id: Generated<string>;
  user_id: string;
  kind: "dropbox" | "onedrive" | "s3";
  external_id: string;
  label: string;
  credentials_encrypted: string;
  access_token_encrypted: string | null;
  access_token_expires_at: Timestamp | null;
  status: Generated<ConnectionRowStatus>;
  status_reason: string | null;
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

export type OAuthStateRow = Selectable<OAuthStatesTable>;
export type InstagramAccountRow = Selectable<InstagramAccountsTable>;
export type NewInstagramAccount = Insertable<InstagramAccountsTable>;
/** What a connection's changes may set (not its identity, owner, plan pause or timestamps). */
export type InstagramAccountUpdate = Omit<
  Updateable<InstagramAccountsTable>,
  "id" | "user_id" | "instagram_user_id" | "paused_by_plan" | "connected_at" | "updated_at"
>;
export type GoogleConnectionRow = Selectable<GoogleConnectionsTable>;
export type NewGoogleConnection = Insertable<GoogleConnectionsTable>;
export type GoogleConnectionUpdate = Omit<
  Updateable<GoogleConnectionsTable>,
  "id" | "user_id" | "root_folder_id" | "connected_at" | "updated_at"
>;
export type DestinationConnectionRow = Selectable<DestinationConnectionsTable>;
export type NewDestinationConnection = Insertable<DestinationConnectionsTable>;
export type NewDataDeletionRequest = Insertable<DataDeletionRequestsTable>;

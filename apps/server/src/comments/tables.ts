import type { DestinationKind } from "@keepsake/contracts";
import type { Generated } from "kysely";
import type { GeneratedTimestamp, Timestamp } from "../db/columns.ts";

/**
 * The tables the comments area owns: each account's "Also keep comments" setting, the comments
 * kept (removed ones marked) and when each post's comments were last read (migration 1060).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "comment_settings",
  "post_comments",
  "comment_reads",
] as const satisfies readonly (keyof CommentsTables)[];

export interface CommentsTables {
  comment_settings: CommentSettingsTable;
  post_comments: PostCommentsTable;
  comment_reads: CommentReadsTable;
}

/** Tables of the comments area (migration 1060). */
export interface CommentSettingsTable {
  account_id: string;
  enabled: boolean;
  permission_missing_at: Timestamp | null;
  updated_at: GeneratedTimestamp;
}

export interface PostCommentsTable {
  post_id: string;
  comment_id: string;
  parent_id: string | null;
  username: string | null;
  text: string;
  like_count: number | null;
  hidden: boolean;
  commented_at: Timestamp;
  first_seen_at: Timestamp;
  last_seen_at: Timestamp;
  removed_at: Timestamp | null;
}

export interface CommentReadsTable {
  post_id: string;
  account_id: string;
  posted_at: Timestamp;
  next_read_at: Timestamp;
  last_read_at: Timestamp | null;
  drive_file_id: string | null;
  drive_md5: string | null;
  /** The destination `drive_file_id` is in (migration 1200). */
  drive_destination: Generated<DestinationKind>;
  /** The account of that destination the file is in (migration 1220; '' unknown). */
  drive_owner: Generated<string>;
}

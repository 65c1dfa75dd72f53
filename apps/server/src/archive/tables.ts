import type { ArchiveCounters, MetricsReason } from "@keepsake/contracts";
import type { Timestamp } from "../db/columns.ts";

export type { MetricsReason } from "@keepsake/contracts";

/**
 * The tables the archive area owns: each post's engagement readings, whether each post is still
 * on Instagram (seen and missed by walks, marked gone), and each account's walks (migration 1040).
 * Only this area's modules touch them; other areas ask its services (scripts/check-areas.ts).
 * Their row types below are the only declaration besides the migrations
 * (test/schema-types.test.ts compares the two).
 */
export const ownedTables = [
  "post_metrics",
  "post_presence",
  "archive_walks",
] as const satisfies readonly (keyof ArchiveTables)[];

/**
 * The stats CSV names each post as the grid does (its id, type, caption and permalink); the
 * charts count the posts per month as the dashboard counts them.
 */
export const readsTables = ["posts"] as const;

export interface ArchiveTables {
  post_metrics: PostMetricsTable;
  post_presence: PostPresenceTable;
  archive_walks: ArchiveWalksTable;
}

/** One reading: a column per counter (`archiveCounters`). */
export interface PostMetricsTable extends ArchiveCounters {
  account_id: string;
  instagram_id: string;
  at: Timestamp;
  reason: MetricsReason;
}

export interface PostPresenceTable {
  account_id: string;
  instagram_id: string;
  user_id: string;
  posted_at: Timestamp;
  last_seen_at: Timestamp;
  first_missed_at: Timestamp | null;
  last_missed_at: Timestamp | null;
  gone_detected_at: Timestamp | null;
}

export interface ArchiveWalksTable {
  account_id: string;
  last_walk_at: Timestamp;
  media_count: number | null;
}

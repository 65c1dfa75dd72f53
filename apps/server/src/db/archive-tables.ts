import type { Timestamp } from "./columns.ts";

/** Tables of the archive area (migration 1040): engagement history and presence on Instagram. */

export type MetricsReason = "backup" | "day_1" | "day_7" | "day_30" | "walk";

export interface PostMetricsTable {
  account_id: string;
  instagram_id: string;
  at: Timestamp;
  reason: MetricsReason;
  likes: number | null;
  comments: number | null;
  views: number | null;
  saves: number | null;
  shares: number | null;
  reposts: number | null;
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

export interface ArchiveTables {
  post_metrics: PostMetricsTable;
  post_presence: PostPresenceTable;
  archive_walks: ArchiveWalksTable;
}

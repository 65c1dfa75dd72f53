import {
  type Backup,
  type Post,
  type PostMediaType,
  type SyncJob,
  syncMessages,
} from "@keepsake/contracts";
import type { BackupRow } from "../backups/tables.ts";
import type { GraphMediaType, PostRow, SyncJobRow } from "./tables.ts";

/** The sync area's rows in the API's shapes (the /api/sync and /api/v1 answers share them). */

export const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

const TO_API_TYPE: Record<GraphMediaType, PostMediaType> = {
  IMAGE: "image",
  VIDEO: "video",
  CAROUSEL_ALBUM: "carousel",
};
export const FROM_API_TYPE: Record<PostMediaType, GraphMediaType> = {
  image: "IMAGE",
  video: "VIDEO",
  carousel: "CAROUSEL_ALBUM",
};

export function toSyncJob(j: SyncJobRow): SyncJob {
  return {
    id: j.id,
    account_id: j.account_id,
    job_type: j.job_type,
    mode: j.mode,
    status: j.status,
    posts_processed: j.posts_processed,
    posts_total: j.posts_total,
    posts_failed: j.posts_failed,
    error_message: j.error_message,
    started_at: iso(j.started_at) as string,
    completed_at: iso(j.completed_at),
  };
}

/**
 * The picture a tile shows: the post's thumbnail, else for an album the first image child, or
 * a video child's thumbnail (an album whose cover is a video has an .mp4 media_url and no
 * thumbnail of its own).
 */
export function coverImageUrl(p: Pick<PostRow, "media_type" | "thumbnail_url" | "children">) {
  if (p.thumbnail_url || p.media_type !== "CAROUSEL_ALBUM") return p.thumbnail_url;
  const children = Array.isArray(p.children) ? p.children : [];
  const image = children.find((c) => c.media_type === "IMAGE" && c.media_url);
  return image?.media_url ?? children.find((c) => c.thumbnail_url)?.thumbnail_url ?? null;
}

export function toPost(p: PostRow, backup: { status: BackupRow["status"] | null } | null): Post {
  const children = Array.isArray(p.children) ? p.children : [];
  return {
    id: p.id,
    account_id: p.account_id,
    instagram_id: p.instagram_id,
    media_type: TO_API_TYPE[p.media_type],
    media_product_type: p.media_product_type
      ? (p.media_product_type.toLowerCase() as Post["media_product_type"])
      : null,
    media_url: p.media_url ?? children[0]?.media_url ?? null,
    thumbnail_url: coverImageUrl(p),
    permalink: p.permalink,
    caption: p.caption,
    timestamp: iso(p.posted_at) as string,
    like_count: p.like_count,
    comments_count: p.comments_count,
    children_count: children.length,
    backup_status: backup?.status ?? null,
    is_backed_up: backup?.status === "completed",
    not_backed_up_reason:
      p.not_backed_up_reason ??
      (backup?.status === "unavailable" ? syncMessages.mediaUnavailable : null),
    source: p.source ?? "api",
  };
}

export function toBackup(b: BackupRow & { post: PostRow }): Backup {
  return {
    id: b.id,
    status: b.status,
    error_message: b.error_message,
    backup_size_bytes: b.backup_size_bytes === null ? null : Number(b.backup_size_bytes),
    created_at: iso(b.created_at) as string,
    updated_at: iso(b.updated_at) as string,
    completed_at: iso(b.completed_at),
    attempts: b.attempts,
    google_drive_file_id: b.google_drive_file_id,
    google_drive_url: b.google_drive_url,
    destination: b.destination,
    instagram_post_id: b.post_id,
    account_id: b.account_id,
    instagram_post: toPost(b.post, { status: b.status }),
  };
}

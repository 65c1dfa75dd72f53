import type { Post } from "@keepsake/contracts";

export type PostBadgeKind =
  | "backed_up"
  | "in_progress"
  | "pending"
  | "failed"
  | "not_backed_up"
  | "unavailable";

export interface PostBadge {
  kind: PostBadgeKind;
  label: string;
  className: string;
}

/**
 * SPEC §4 "Post tile badge": 'backed up' when backup_status is completed or is_backed_up;
 * 'in progress' when processing or pending; otherwise 'pending backup'. Two states the SPEC
 * does not name are told apart, so the tiles agree with the Pending count: a failed backup,
 * a post Keepsake will not back up (the plan's post limit), whose reason is the tile's title,
 * and a post whose media Instagram does not give out (its caption and details are in Drive).
 */
export function postBadge(
  post: Pick<Post, "backup_status" | "is_backed_up" | "not_backed_up_reason">,
): PostBadge {
  if (post.backup_status === "completed" || post.is_backed_up) {
    return { kind: "backed_up", label: "backed up", className: "badge badge-success" };
  }
  if (post.backup_status === "processing" || post.backup_status === "pending") {
    return { kind: "in_progress", label: "in progress", className: "badge" };
  }
  if (post.backup_status === "unavailable") {
    return { kind: "unavailable", label: "not available from Instagram", className: "badge" };
  }
  if (post.backup_status === "failed") {
    return { kind: "failed", label: "backup failed", className: "badge badge-danger" };
  }
  if (post.not_backed_up_reason) {
    return { kind: "not_backed_up", label: "over plan limit", className: "badge" };
  }
  return { kind: "pending", label: "pending backup", className: "badge badge-warning" };
}

/** SPEC §2 tile label by media type. */
export function mediaTypeLabel(mediaType: Post["media_type"]): "Photo" | "Video" | "Album" {
  if (mediaType === "video") return "Video";
  if (mediaType === "carousel") return "Album";
  return "Photo";
}

import { syncMessages } from "@keepsake/contracts";
import type { GraphMediaType, PostRow } from "../sync/tables.ts";

/**
 * One file a backup puts in Drive: a media item (carousel children each), the cover image of a
 * video (or of a carousel whose first item is a video), or the sidecar.
 */
export interface BackupItem {
  /**
   * `appProperties.keepsakeMediaId`: the Instagram media id (`<id>_cover` for the cover,
   * `<id>_meta` for the sidecar).
   */
  key: string;
  kind: "media" | "cover" | "meta";
  /** The Instagram media id to re-fetch a URL for (the child's id for carousel children). */
  mediaId: string;
  mediaType: GraphMediaType;
  url: string | null;
  name: string;
  /** Index among the carousel's children, from 1; null otherwise (and for the cover). */
  index: number | null;
}

/**
 * The cover a creator chose for a video, or for a carousel whose first item is a video: the
 * video's thumbnail. Null for images (and carousels opening with an image, which is its cover).
 */
export function coverUrl(post: Pick<PostRow, "media_type" | "thumbnail_url" | "children">) {
  if (post.media_type === "VIDEO") return post.thumbnail_url;
  const first = post.media_type === "CAROUSEL_ALBUM" ? post.children[0] : undefined;
  return first?.media_type === "VIDEO" ? first.thumbnail_url : null;
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** photo, video, reel, story or carousel: the `<kind>` of DESIGN.md's file names. */
export function postKind(post: Pick<PostRow, "media_type" | "media_product_type">): string {
  if (post.media_product_type === "STORY") return "story";
  if (post.media_product_type === "REELS") return "reel";
  if (post.media_type === "CAROUSEL_ALBUM") return "carousel";
  return post.media_type === "VIDEO" ? "video" : "photo";
}

export const extensionOf = (t: GraphMediaType) => (t === "VIDEO" ? "mp4" : "jpg");
export const mimeOf = (t: GraphMediaType) => (t === "VIDEO" ? "video/mp4" : "image/jpeg");

/**
 * `<YYYY-MM-DD>_<kind>_<id>[_<n>]`: the one grammar every file Keepsake writes is named by (the
 * API's posts here, an export's items in import.naming.ts), before its suffix and extension.
 */
export function baseName(at: Date, kind: string, id: string, index: number | null = null): string {
  const base = `${day(at)}_${kind}_${id}`;
  return index === null ? base : `${base}_${index}`;
}

/** `<YYYY-MM-DD>_<kind>_<instagram id>[_<n>].<ext>` */
export function fileName(post: PostRow, mediaType: GraphMediaType, index: number | null): string {
  const base = baseName(new Date(post.posted_at), postKind(post), post.instagram_id, index);
  return `${base}.${extensionOf(mediaType)}`;
}

export function coverFileName(post: PostRow): string {
  return `${baseName(new Date(post.posted_at), postKind(post), post.instagram_id)}_cover.jpg`;
}

export function metaFileName(post: PostRow): string {
  return `${baseName(new Date(post.posted_at), postKind(post), post.instagram_id)}_meta.json`;
}

/** The Drive folder path of a post: Keepsake / @username / YYYY. */
export function folderPath(username: string, postedAt: Date): string[] {
  return ["Keepsake", `@${username}`, String(postedAt.getUTCFullYear())];
}

/** The media items of a post, in order, then its cover (when it has one), then the sidecar. */
export function backupItems(post: PostRow): BackupItem[] {
  const items: BackupItem[] = [];
  if (post.media_type === "CAROUSEL_ALBUM" && post.children.length > 0) {
    post.children.forEach((c, i) => {
      items.push({
        key: c.id,
        kind: "media",
        mediaId: c.id,
        mediaType: c.media_type,
        url: c.media_url,
        name: fileName(post, c.media_type, i + 1),
        index: i + 1,
      });
    });
  } else {
    const type = post.media_type === "CAROUSEL_ALBUM" ? "IMAGE" : post.media_type;
    items.push({
      key: post.instagram_id,
      kind: "media",
      mediaId: post.instagram_id,
      mediaType: type,
      url: post.media_url,
      name: fileName(post, type, null),
      index: null,
    });
  }
  const cover = coverUrl(post);
  if (cover) {
    items.push({
      key: `${post.instagram_id}_cover`,
      kind: "cover",
      mediaId: post.instagram_id,
      mediaType: "IMAGE",
      url: cover,
      name: coverFileName(post),
      index: null,
    });
  }
  items.push({
    key: `${post.instagram_id}_meta`,
    kind: "meta",
    mediaId: post.instagram_id,
    mediaType: post.media_type,
    url: null,
    name: metaFileName(post),
    index: null,
  });
  return items;
}

/** The sidecar's content: everything Instagram said about the post. */
export function sidecar(
  post: PostRow,
  username: string,
  files: { name: string; id: string | null }[],
  cover: { name: string; id: string } | null = null,
  /** Files Instagram does not give out (no media URL): named, not in Drive. */
  unavailable: string[] = [],
) {
  return {
    instagram_id: post.instagram_id,
    username,
    media_type: post.media_type,
    media_product_type: post.media_product_type,
    caption: post.caption,
    timestamp: new Date(post.posted_at).toISOString(),
    permalink: post.permalink,
    shortcode: post.shortcode,
    like_count: post.like_count,
    comments_count: post.comments_count,
    children: post.children.map((c) => ({ id: c.id, media_type: c.media_type })),
    files,
    cover,
    ...(unavailable.length > 0
      ? {
          not_available_from_instagram: unavailable,
          not_available_reason: syncMessages.mediaWithheld,
        }
      : {}),
    backed_up_by: "Keepsake",
  };
}

import type { DriveFileMetadata } from "../providers/google/drive.client.ts";
import type { PostRow } from "../sync/tables.ts";
import { type BackupItem, backupItems, folderPath, mimeOf } from "./naming.ts";

/** `appProperties` keys: the item (media id, `<id>_cover`, `<id>_meta`), its post, a folder. */
export const ITEM_KEY = "keepsakeMediaId";
export const POST_KEY = "keepsakePostId";
export const FOLDER_KEY = "keepsakeFolder";

/** Drive allows descriptions up to this many characters. */
const MAX_DESCRIPTION = 30_000;

export interface PlannedItem {
  item: BackupItem;
  /** Everything Drive stores about the file, sent in the request that creates it. */
  meta: DriveFileMetadata;
}

/** What a backup of `post` puts where: its folder path and each file with its metadata. */
export function planPost(post: PostRow, username: string) {
  const path = folderPath(username, new Date(post.posted_at));
  const time = new Date(post.posted_at).toISOString();
  const items = backupItems(post).map(
    (item): PlannedItem => ({
      item,
      meta: {
        name: item.name,
        mimeType: item.kind === "meta" ? "application/json" : mimeOf(item.mediaType),
        createdTime: time,
        modifiedTime: time,
        ...(post.caption ? { description: post.caption.slice(0, MAX_DESCRIPTION) } : {}),
        appProperties: { [ITEM_KEY]: item.key, [POST_KEY]: post.instagram_id },
      },
    }),
  );
  return { path, items };
}

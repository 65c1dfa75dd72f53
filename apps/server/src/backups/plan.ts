import type { FileSpec } from "../destinations/index.ts";
import type { PostRow } from "../sync/tables.ts";
import { type BackupItem, backupItems, folderPath, mimeOf } from "./naming.ts";

export interface PlannedItem {
  item: BackupItem;
  /** Everything the destination keeps about the file (but its folder), sent when it is created. */
  spec: Omit<FileSpec, "folderId">;
}

/** What a backup of `post` puts where: its folder path and each file with its metadata. */
export function planPost(post: PostRow, username: string) {
  const path = folderPath(username, new Date(post.posted_at));
  const time = new Date(post.posted_at);
  const items = backupItems(post).map(
    (item): PlannedItem => ({
      item,
      spec: {
        name: item.name,
        mimeType: item.kind === "meta" ? "application/json" : mimeOf(item.mediaType),
        time,
        ...(post.caption ? { description: post.caption } : {}),
        tags: { item: item.key, post: post.instagram_id },
      },
    }),
  );
  return { path, items };
}

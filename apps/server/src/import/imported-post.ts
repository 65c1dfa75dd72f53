import type { DestinationKind } from "@keepsake/contracts";
import type { GraphMediaType, GraphProductType, PostChild } from "../sync/tables.ts";
import type { ImportFileRow, ImportItemRow } from "./tables.ts";

/** What an imported item is as a post of its account, and its backup (the files in Drive). */
export interface ImportedPost {
  user_id: string;
  account_id: string;
  instagram_id: string;
  media_type: GraphMediaType;
  media_product_type: GraphProductType;
  caption: string | null;
  posted_at: Date;
  children: PostChild[];
  backup: {
    /** Where the item's files are, and in which account of it (`backups.owner`). */
    destination: DestinationKind;
    owner: string;
    size: number;
    md5: string | null;
    drive_file_id: string | null;
    drive_url: string | null;
  };
}

const PRODUCT: Record<ImportItemRow["kind"], GraphProductType> = {
  story: "STORY",
  reel: "REELS",
  post: "FEED",
  archived_post: "FEED",
};

/**
 * The post an item of an export becomes once its files are in Drive: keyed by the item's key
 * (its media id, else a digest), a carousel when it has several files, and its backup's size,
 * checksum and link those of its files (the first one's, as a backup of the API's posts).
 */
export function importedPost(
  item: Pick<
    ImportItemRow,
    "user_id" | "account_id" | "item_key" | "kind" | "caption" | "taken_at" | "destination"
  >,
  files: Pick<
    ImportFileRow,
    "file_key" | "media_type" | "size_bytes" | "md5" | "drive_file_id" | "web_url"
  >[],
  owner: string,
): ImportedPost {
  const first = files[0];
  const carousel = files.length > 1;
  return {
    user_id: item.user_id,
    account_id: item.account_id,
    instagram_id: item.item_key,
    media_type: carousel ? "CAROUSEL_ALBUM" : (first?.media_type ?? "IMAGE"),
    media_product_type: PRODUCT[item.kind],
    caption: item.caption,
    posted_at: new Date(item.taken_at),
    children: carousel
      ? files.map((f) => ({
          id: f.file_key,
          media_type: f.media_type,
          media_url: null,
          thumbnail_url: null,
        }))
      : [],
    backup: {
      destination: item.destination,
      owner,
      size: files.reduce((n, f) => n + Number(f.size_bytes ?? 0), 0),
      md5: first?.md5 ?? null,
      drive_file_id: first?.drive_file_id ?? null,
      drive_url: first?.web_url ?? null,
    },
  };
}

import { createHash } from "node:crypto";
import type { ExportItem } from "@keepsake/contracts/instagram-export";
import { baseName, folderPath, postKind } from "../backups/index.ts";
import type { ImportFileRow, ImportItemRow } from "./tables.ts";

/** The `source` tag (Drive: `appProperties.keepsakeSource`) marking what an import wrote. */
export const SOURCE_VALUE = "instagram-export";

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 20);

/**
 * The id an item's files are named and keyed by: the media id its first file name carries (the
 * same id an API backup uses), else `x` and a digest of that file's path in the export.
 */
export function nameId(it: ExportItem): string {
  const first = it.media[0];
  return first?.media_id ?? `x${digest(`${it.kind}:${first?.uri ?? it.taken_at}`)}`;
}

/** The item's key per account: one row whatever how often the export is imported. */
export const exportItemKey = (it: ExportItem) => nameId(it);

/** A file's key (`appProperties.keepsakeMediaId`): its media id, else the item's id and position. */
export function exportFileKey(it: ExportItem, index: number): string {
  const f = it.media[index];
  if (f?.media_id) return f.media_id;
  return it.media.length > 1 ? `${nameId(it)}_${index + 1}` : nameId(it);
}

const PRODUCT = { story: "STORY", reel: "REELS", post: "FEED", archived_post: "FEED" } as const;

/** The `<kind>` of the file names, as the backup engine names API posts (`postKind`). */
function kindWord(kind: ExportItem["kind"], media: { media_type: string }[]): string {
  const type =
    media.length > 1 ? "CAROUSEL_ALBUM" : media[0]?.media_type === "VIDEO" ? "VIDEO" : "IMAGE";
  return postKind({ media_type: type, media_product_type: PRODUCT[kind] });
}

const extensionOf = (uri: string, type: string) => {
  const m = /\.([A-Za-z0-9]{2,5})$/.exec(uri);
  return (m?.[1] ?? (type === "VIDEO" ? "mp4" : "jpg")).toLowerCase();
};

/** `<YYYY-MM-DD>_<kind>_<id>[_<n>].<ext>`, the backup engine's names. */
export function importFileName(it: ExportItem, id: string, index: number): string {
  const f = it.media[index];
  const n = it.media.length > 1 ? index + 1 : null;
  const base = baseName(new Date(it.taken_at), kindWord(it.kind, it.media), id, n);
  return `${base}.${extensionOf(f?.uri ?? "", f?.media_type ?? "IMAGE")}`;
}

export function importMetaName(
  item: Pick<ImportItemRow, "kind" | "taken_at" | "item_key">,
  files: Pick<ImportFileRow, "media_type">[],
): string {
  return `${baseName(new Date(item.taken_at), kindWord(item.kind, files), item.item_key)}_meta.json`;
}

/**
 * Keepsake / @user / YYYY, where the API's posts and stories go. (Earlier versions filed
 * imported stories in YYYY / Stories; those files are found by their tags, never written again.)
 */
export function importFolderPath(username: string, at: Date): string[] {
  return folderPath(username, at);
}

const MIME: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  heic: "image/heic",
  gif: "image/gif",
  mp4: "video/mp4",
  mov: "video/quicktime",
  m4v: "video/x-m4v",
  webm: "video/webm",
};

export function importMime(uri: string, type: "IMAGE" | "VIDEO"): string {
  return MIME[extensionOf(uri, type)] ?? (type === "VIDEO" ? "video/mp4" : "image/jpeg");
}

/** The item's `…_meta.json`: what the export says of it, and its files, marked as imported. */
export function importSidecar(
  item: Pick<ImportItemRow, "kind" | "taken_at" | "caption" | "item_key">,
  username: string,
  files: Pick<ImportFileRow, "name" | "drive_file_id" | "uri" | "media_type" | "file_key">[],
) {
  const kind = item.kind === "archived_post" ? "archived post" : item.kind;
  return {
    instagram_id: /^\d+$/.test(item.item_key) ? item.item_key : null,
    username,
    kind,
    media_product_type: item.kind === "story" ? "STORY" : item.kind === "reel" ? "REELS" : "FEED",
    archived: item.kind === "archived_post" || item.kind === "story",
    caption: item.caption,
    timestamp: new Date(item.taken_at).toISOString(),
    files: files.map((f) => ({
      name: f.name,
      id: f.drive_file_id,
      media_type: f.media_type,
      instagram_id: /^\d+$/.test(f.file_key) ? f.file_key : null,
      export_path: f.uri,
    })),
    source: SOURCE_VALUE,
    backed_up_by: "Keepsake",
  };
}

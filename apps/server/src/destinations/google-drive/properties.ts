import type { FileTags } from "../destination.ts";

/**
 * Drive `appProperties` keys: the item (media id, `<id>_cover`, `<id>_meta`, `<id>_comments`,
 * an export's key), its post, where it came from, and a folder's path.
 */
export const ITEM_KEY = "keepsakeMediaId";
export const POST_KEY = "keepsakePostId";
export const SOURCE_KEY = "keepsakeSource";
export const FOLDER_KEY = "keepsakeFolder";

/** Keepsake's tags as Drive `appProperties` (item, then post, then source). */
export function appPropertiesOf(tags: FileTags): Record<string, string> {
  return {
    [ITEM_KEY]: tags.item,
    ...(tags.post !== undefined ? { [POST_KEY]: tags.post } : {}),
    ...(tags.source !== undefined ? { [SOURCE_KEY]: tags.source } : {}),
  };
}

/** A Drive file's `appProperties` as Keepsake's tags. */
export function tagsOf(appProperties: Record<string, string>): Partial<FileTags> {
  const out: Partial<FileTags> = {};
  if (appProperties[ITEM_KEY] !== undefined) out.item = appProperties[ITEM_KEY];
  if (appProperties[POST_KEY] !== undefined) out.post = appProperties[POST_KEY];
  if (appProperties[SOURCE_KEY] !== undefined) out.source = appProperties[SOURCE_KEY];
  return out;
}

import { ProviderError } from "../../providers/provider-error.ts";
import type { S3Write } from "../../providers/s3/s3.client.ts";
import type { FileSpec, FileTags, StoredFile } from "../destination.ts";

/**
 * How Keepsake's files look in S3-compatible storage: a file is the object at
 * `folder/name` (below the connection's prefix, which the client adds); that key is its id.
 */

/** Keepsake's tags, as `x-amz-meta-*` (S3 cannot search them: the ledger is the index). */
export const ITEM_META = "keepsake-item";
export const POST_META = "keepsake-post";
export const SOURCE_META = "keepsake-source";

/** The object key of a file named `name` in the folder `folderId` (a path such as `Keepsake/@user/2024`). */
export const keyOf = (folderId: string, name: string) =>
  folderId ? `${folderId.replace(/\/+$/, "")}/${name}` : name;

/** `photo.jpg` → `photo (2).jpg`; `notes` → `notes (2)`. */
export function numbered(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** What a new object carries: its type, the post's time and Keepsake's tags. */
export function writeOf(spec: FileSpec, overwrite = false): S3Write {
  const metadata: Record<string, string> = { [ITEM_META]: spec.tags.item };
  if (spec.tags.post) metadata[POST_META] = spec.tags.post;
  if (spec.tags.source) metadata[SOURCE_META] = spec.tags.source;
  return {
    contentType: spec.mimeType,
    ...(spec.time ? { postedAt: spec.time } : {}),
    metadata,
    ...(overwrite ? { overwrite: true } : {}),
  };
}

export function tagsOf(metadata: Record<string, string>): Partial<FileTags> {
  const tags: Partial<FileTags> = {};
  if (metadata[ITEM_META]) tags.item = metadata[ITEM_META];
  if (metadata[POST_META]) tags.post = metadata[POST_META];
  if (metadata[SOURCE_META]) tags.source = metadata[SOURCE_META];
  return tags;
}

const folderOf = (key: string) => (key.includes("/") ? key.slice(0, key.lastIndexOf("/")) : "");
const nameOf = (key: string) => key.slice(key.lastIndexOf("/") + 1);

/** An object as the seam describes it: id and folder are its key and the key's folder. */
export function storedObject(
  key: string,
  o: { size: number; etag: string; metadata?: Record<string, string> },
  spec?: FileSpec,
): StoredFile {
  return {
    id: key,
    name: nameOf(key),
    size: o.size,
    hash: o.etag || null,
    // A bucket's objects have no link a person can open without signing in to its console.
    webUrl: null,
    tags: spec ? { ...spec.tags } : tagsOf(o.metadata ?? {}),
    folderId: folderOf(key),
  };
}

/** A multipart upload as the ledger records it (its `ref`): the key, the upload and its part size. */
export interface S3Ref {
  key: string;
  uploadId: string;
  partSize: number;
}

export const refOf = (r: S3Ref) =>
  JSON.stringify({ key: r.key, uploadId: r.uploadId, partSize: r.partSize });

/** The recorded ref, or null when it is not one of ours. */
export function parseRef(ref: string): S3Ref | null {
  try {
    const r = JSON.parse(ref) as Partial<S3Ref>;
    if (
      typeof r.key === "string" &&
      typeof r.uploadId === "string" &&
      typeof r.partSize === "number" &&
      r.partSize > 0
    )
      return { key: r.key, uploadId: r.uploadId, partSize: r.partSize };
  } catch {}
  return null;
}

export const noObject = (key: string) =>
  new ProviderError("s3", "not_found", `S3 storage: no object at ${key}`, {
    status: 404,
    code: "NoSuchKey",
  });

/** A download's length when it says it. */
export function declaredLength(res: Response): number | null {
  const v = res.headers.get("content-length");
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/** A download's body, piece by piece. */
export async function* bodyOf(res: Response): AsyncGenerator<Uint8Array> {
  if (!res.body) return;
  const reader = res.body.getReader();
  let ended = false;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) {
        ended = true;
        return;
      }
      yield r.value;
    }
  } finally {
    // Left early (a failure): the download is let go rather than left open.
    if (!ended) await reader.cancel().catch(() => {});
  }
}

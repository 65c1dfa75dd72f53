import type { DriveItem, FileTimes } from "../../providers/microsoft/onedrive.client.ts";
import { ProviderError } from "../../providers/provider-error.ts";
import type { FileSpec, StoredFile } from "../destination.ts";

/**
 * OneDrive's identity is the path below the app folder (`/me/drive/special/approot`, whose
 * name is localised and never written): a folder id is `Keepsake/@user/2024`, a file id
 * `Keepsake/@user/2024/<name>`. Keepsake's ledger records these; Graph's item ids are not
 * needed (every call addresses the item by path).
 */
export const joinPath = (...parts: string[]) =>
  parts
    .flatMap((p) => p.split("/"))
    .filter(Boolean)
    .join("/");

/** The folder part of a file id, or null at the app folder itself. */
export function folderOf(path: string): string | null {
  const at = path.lastIndexOf("/");
  return at > 0 ? path.slice(0, at) : null;
}

export const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** `name` for the first copy, `base (n).ext` after: a new file never overwrites media. */
export function suffixed(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** The post's time as the file's `fileSystemInfo` (none: OneDrive's now). */
export const timesOf = (spec: Pick<FileSpec, "time">): FileTimes | undefined =>
  spec.time ? { created: spec.time, modified: spec.time } : undefined;

/** Graph keeps file-system times to the second. */
export const sameSecond = (a: string | null, b: Date) =>
  a !== null && Math.floor(Date.parse(a) / 1000) === Math.floor(b.getTime() / 1000);

/** A file as the seam describes it: its id is its path. */
export const storedFile = (path: string, item: DriveItem, spec?: FileSpec): StoredFile => ({
  id: path,
  name: nameOf(path),
  size: item.size,
  hash: item.quickXorHash,
  webUrl: item.webUrl,
  tags: spec ? { ...spec.tags } : {},
  folderId: folderOf(path),
});

/** What Keepsake records of an open upload session: its upload URL and the file's path. */
export interface SessionRef {
  url: string;
  path: string;
}

export const refOf = (s: SessionRef) => JSON.stringify({ url: s.url, path: s.path });

/** The recorded reference, or null when it is not one of ours (then the session is gone). */
export function parseRef(ref: string): SessionRef | null {
  try {
    const r = JSON.parse(ref) as Partial<SessionRef>;
    return typeof r?.url === "string" && typeof r.path === "string"
      ? { url: r.url, path: r.path }
      : null;
  } catch {
    return null;
  }
}

export const notFound = (path: string) =>
  new ProviderError("microsoft", "not_found", `OneDrive: no file at ${path}`, {
    status: 404,
    code: "itemNotFound",
  });

export const mismatch = () =>
  new ProviderError(
    "microsoft",
    "transient",
    "The file in OneDrive does not match what was sent (quickXorHash)",
    { code: "quickxor_mismatch" },
  );

export const isConflict = (err: unknown) =>
  err instanceof ProviderError && err.provider === "microsoft" && err.code === "conflict";

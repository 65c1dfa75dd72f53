import type { DropboxFile } from "../../providers/dropbox/dropbox.client.ts";
import type { FileSpec, StoredFile } from "../destination.ts";

/** Where Dropbox puts an app folder app's files, as a person sees it on dropbox.com. */
export const DROPBOX_APP_FOLDER = "Apps/Keepsake";
/** dropbox.com's files page; in sandbox mode the sandbox's own (`{DROPBOX_WWW_URL}/home`). */
export const WEB_HOME = "https://www.dropbox.com/home";

/** A folder id ("Keepsake/@user/2024", as `ensureFolder` answers it) as a path in the app folder. */
export const folderPath = (folderId: string) => `/${folderId.replace(/^\/+|\/+$/g, "")}`;

/** The path of `name` in the folder `folderId`. */
export const filePath = (folderId: string, name: string) => `${folderPath(folderId)}/${name}`;

/** A link to a file in the app folder on dropbox.com (each segment escaped, `@` kept). */
export function webUrlOf(pathDisplay: string, home = WEB_HOME): string {
  const segments = pathDisplay
    .split("/")
    .filter(Boolean)
    .map((s) => encodeURIComponent(s).replace(/%40/g, "@"));
  return `${home}/${DROPBOX_APP_FOLDER}/${segments.join("/")}`;
}

/** `name` for n = 1, else `name (n).ext` (Dropbox's own way of naming a second file). */
export function numbered(name: string, n: number): string {
  if (n < 2) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/**
 * A Dropbox file as the seam describes it. Its id is Dropbox's file id (`id:…`): stable when the
 * file is overwritten in place, and usable by get, remove and replace. Its folder is the folder
 * id (the path without the leading slash).
 */
export function storedFile(f: DropboxFile, spec?: FileSpec, home = WEB_HOME): StoredFile {
  const parent = f.pathDisplay.slice(0, f.pathDisplay.lastIndexOf("/")).replace(/^\/+/, "");
  return {
    id: f.id,
    name: f.name,
    size: f.size,
    hash: f.contentHash,
    webUrl: webUrlOf(f.pathDisplay, home),
    tags: spec ? { ...spec.tags } : {},
    folderId: spec?.folderId ?? (parent || null),
  };
}

/**
 * An upload session's reference as the ledger records it: the session, the path it finishes
 * at, and (recorded again just before the finish) the content hash of the whole file — so a
 * session found gone later is known to have finished when that path holds that hash.
 */
export interface SessionRef {
  sessionId: string;
  path: string;
  contentHash: string | null;
}

export const sessionRef = (r: SessionRef): string =>
  JSON.stringify({
    dropbox_session: r.sessionId,
    path: r.path,
    ...(r.contentHash ? { content_hash: r.contentHash } : {}),
  });

/** A recorded reference, or null when it is not one of Dropbox's (it cannot be resumed). */
export function parseSessionRef(ref: string): SessionRef | null {
  let raw: unknown;
  try {
    raw = JSON.parse(ref);
  } catch {
    return null;
  }
  const r = (raw ?? {}) as Record<string, unknown>;
  if (typeof r.dropbox_session !== "string" || typeof r.path !== "string") return null;
  return {
    sessionId: r.dropbox_session,
    path: r.path,
    contentHash: typeof r.content_hash === "string" ? r.content_hash : null,
  };
}

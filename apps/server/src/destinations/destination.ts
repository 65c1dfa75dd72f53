import type { DestinationKind } from "@keepsake/contracts";
import { isRetryable, ProviderError } from "../providers/provider-error.ts";
import type { S3Settings } from "../providers/s3/s3.client.ts";

export type { DestinationKind } from "@keepsake/contracts";

/**
 * The seam between Keepsake and a place backups go (Google Drive today; Dropbox, OneDrive and
 * S3-compatible storage are meant to be adapters of this same interface). Modelled on what the
 * providers offer (rclone's Put / PutStream / Hashes / SetModTime / chunk writer): the engine,
 * the import and the comments area write only through it, so naming, the ledger, the hash check,
 * backoff and token refresh each exist once.
 *
 * Every adapter documents the values below; Drive's are given in each field's comment.
 */

/** Which hash a destination computes over what it stored, and Keepsake compares. */
export type DestinationHash =
  /** Drive `md5Checksum` (hex). */
  | "md5"
  /** Dropbox `content_hash`: SHA-256 of the SHA-256s of each 4 MiB block (hex). */
  | "dropbox_content_hash"
  /** OneDrive `file.hashes.quickXorHash` (base64). */
  | "quickxor"
  /** S3 `x-amz-checksum-*` (a multipart ETag is not an MD5). */
  | "crc32"
  | "crc32c"
  | "sha256"
  /**
   * S3's ETag with `Content-MD5` on every request (what R2, B2 and older MinIO accept, unlike
   * the flexible checksums): the md5 of a single PutObject (hex), or the md5 of the parts' md5s
   * and `-N` of a multipart upload — each part's ETag checked against the md5 of what was sent.
   */
  | "s3_etag";

/** What a destination can do, and so how Keepsake must write to it. */
export interface DestinationCapabilities {
  /** Shown to people: "Google Drive". */
  label: string;
  /**
   * The largest file Keepsake sends in one request with its metadata (above it: an upload
   * session). Drive: Keepsake's `multipartMaxBytes` (5 MB by default; Drive allows 5 MB
   * multipart). Dropbox 150 MB (`files/upload`), OneDrive 4 MB (`PUT …/content`), S3 5 GB.
   */
  maxSingleRequestBytes: number;
  /**
   * Every chunk of an upload session but the last is a multiple of this. Drive 256 KiB,
   * Dropbox 4 MiB, OneDrive 320 KiB, S3 every part but the last the same size ≥ 5 MiB.
   */
  chunkQuantumBytes: number;
  /** The largest chunk, or null when only Keepsake's setting bounds it. Drive: null; OneDrive < 60 MiB. */
  maxChunkBytes: number | null;
  /**
   * A session needs the total length before its first byte. Drive: false (`bytes a-b/*` until
   * the last chunk), Dropbox false, S3 false (multipart); OneDrive true — media of unknown length
   * must then be read to its end (up to the single-request size) or refused.
   */
  lengthRequiredUpFront: boolean;
  /** The hash verified after every upload. Drive: md5. */
  verifiedHash: DestinationHash;
  /**
   * A file's modified (and created) time can be set to the post's time. Drive: true
   * (`createdTime`/`modifiedTime` in the creating request); Dropbox true (`client_modified`);
   * OneDrive true (`fileSystemInfo`); S3 false (the time is kept in `x-amz-meta-*`).
   */
  setsModifiedTime: boolean;
  /**
   * Files carry Keepsake's tags (item, post, source) and can be searched by them, so what an
   * attempt wrote before it could record it is found again. Drive: true (`appProperties`);
   * Dropbox: property groups; OneDrive false, S3 false (metadata is not searchable): Keepsake
   * must index what it wrote — the ledger (`ledger.ts`) is then the only way back to a file,
   * and an upload session must be recorded before its first byte (as it always is).
   */
  findsByTags: boolean;
  /** How long an upload session can be resumed. Drive: about a week. */
  sessionLifetimeMs: number;
}

/** Keepsake's marks on a file (Drive: `appProperties` keepsakeMediaId / keepsakePostId / keepsakeSource). */
export interface FileTags {
  /** The item: an Instagram media id, `<id>_cover`, `<id>_meta`, `<id>_comments`, an export key. */
  item: string;
  /** The post it belongs to (found all at once by `findPostFiles`). */
  post?: string;
  /** Where it came from when not the API ("instagram-export"). */
  source?: string;
}

/** A new file: where, named how, with what the destination keeps about it. */
export interface FileSpec {
  folderId: string;
  name: string;
  mimeType: string;
  /** The post's time as the file's created and modified time (null: the destination's now). */
  time: Date | null;
  /** Searchable text (Drive `description`: the caption). */
  description?: string;
  tags: FileTags;
}

/**
 * A file in the destination as Keepsake records it. Its name, tags and folder are known for
 * files found, read or written through a session; a finished upload's status or a replacement
 * may answer only id, size, hash and link (the ledger needs no more).
 */
export interface StoredFile {
  id: string;
  name: string;
  size: number | null;
  /** The `verifiedHash` of its content, when the destination reports it. */
  hash: string | null;
  /** A link a person can open. */
  webUrl: string | null;
  tags: Partial<FileTags>;
  /** Its folder, when known. */
  folderId: string | null;
}

/** A folder Keepsake writes into, as recorded. */
export interface FolderRecord {
  id: string;
  /** When Keepsake recorded it. */
  recordedAt: Date;
  /** Found in the destination (made by an earlier connection or installation) rather than created. */
  adopted: boolean;
}

/** An open upload session: its reference (Drive: the session URI) and how much the destination holds. */
export interface OpenUpload {
  ref: string;
  total: number | null;
  received: number;
}

/** Told of an upload session's life, so it is recorded before its first byte (the ledger). */
export interface UploadRecorder {
  opened(ref: string, total: number | null): Promise<void>;
  /** The session finished, or its file was refused (hash) and it must start again. */
  closed(): Promise<void>;
}

/** The bytes of one file: a download (its body, and its length when known). */
export interface ByteSource {
  download: Response;
  /** The same bytes again from the first (after a request broke off). */
  reopen: () => Promise<Response>;
}

/** The resumable session recorded earlier is gone (expired, unknown): the item starts over. */
export class UploadSessionGoneError extends Error {}

/** The destination refused the user's grant for good (refresh failed): reconnect. */
export class DestinationRevokedError extends Error {
  readonly destination: string;
  constructor(destination: string, message: string) {
    super(message);
    this.destination = destination;
  }
}

/** One user's destination: credentials fetched once, refreshed once when refused; calls retried. */
export interface DestinationSession {
  /** The folders of `path` (outermost first) under the connected account `accountKey`; answers the innermost. */
  ensureFolder(accountKey: string, path: string[]): Promise<FolderRecord>;
  /** The folders of `path` were deleted in the destination: the next ensure makes them again. */
  forgetFolder(accountKey: string, path: string[]): Promise<void>;
  /** Files Keepsake wrote for a post, by item tag (extra copies removed, the oldest kept). */
  findPostFiles(postKey: string): Promise<Map<string, StoredFile>>;
  /** Files Keepsake wrote with this item tag, oldest first. */
  findItem(itemKey: string): Promise<StoredFile[]>;
  /**
   * Streams a file in: in one request when small, else through an upload session recorded
   * (`recorder.opened`) before its first byte, resumed from `resume`, and verified at the end
   * against `verifiedHash` (a mismatch removes the file and throws a transient error). Throws
   * `UploadSessionGoneError` when `resume` no longer exists.
   */
  put(
    spec: FileSpec,
    source: ByteSource,
    recorder: UploadRecorder,
    control: {
      resume: OpenUpload | null;
      /** Throws when the caller lost its claim; checked before each chunk and retry. */
      checkLease: () => void;
      signal?: AbortSignal;
    },
  ): Promise<StoredFile>;
  /** A small file from memory, verified (sidecars, comments files). */
  putBytes(spec: FileSpec, bytes: Buffer): Promise<StoredFile>;
  /** Where a recorded session stands: finished, open, or gone (null). */
  uploadStatus(
    ref: string,
    total: number | null,
  ): Promise<{ done: StoredFile } | { open: OpenUpload } | null>;
  /** Replaces a file's content in place (same id), verified. Throws not_found when it is gone. */
  replace(fileId: string, bytes: Buffer, mimeType: string): Promise<StoredFile>;
  get(fileId: string): Promise<StoredFile>;
  remove(fileId: string): Promise<void>;
}

/**
 * A user's credentials for the destinations other than Drive, kept sealed by the connections
 * area (`destination_connections`). Each throws an `AppError` when the user must reconnect
 * (refresh refused, never connected): the adapter's caller turns it into `DestinationRevokedError`.
 */
export interface DestinationCredentials {
  /** A Dropbox or OneDrive access token; a new one (refresh token used) when `forceRefresh`. */
  accessToken(
    userId: string,
    kind: "dropbox" | "onedrive",
    options?: { forceRefresh?: boolean },
  ): Promise<string>;
  /** The user's S3-compatible storage, its secret opened. */
  s3Settings(userId: string): Promise<S3Settings>;
  /**
   * The destination refused `credential` (an access token, or S3's settings) even after it was
   * read again: the connection is marked as needing the user, with `reason`, unless what it
   * holds now differs (reconnected meanwhile). Must not throw.
   */
  refused?(
    userId: string,
    kind: "dropbox" | "onedrive" | "s3",
    reason: string,
    credential: string | S3Settings,
  ): Promise<void>;
}

/** A place backups go. */
export interface Destination {
  /** `google_drive`, `dropbox`, `onedrive`, `s3`. */
  readonly name: DestinationKind;
  readonly capabilities: DestinationCapabilities;
  /** The user's session; `signal` (the worker shuts down) stops calls and backoff sleeps. */
  open(userId: string, signal?: AbortSignal): DestinationSession;
}

/** Providers Keepsake reads from: their failures are never a destination's. */
const SOURCES = new Set<string>(["instagram", "facebook"]);

/**
 * One classification of a destination's failures, as the engine, the alerts and the status page
 * act on them (adapters throw `ProviderError`s whose kinds map here, or `DestinationRevokedError`):
 * revoked → reconnect (`*_revoked`); quota_full → the user frees space (`drive_full` alert);
 * throttled → wait `retryAfterMs`; transient → retry with backoff; not_found → the file or
 * folder is gone; permanent → the attempt fails.
 */
export type DestinationFailure =
  | { kind: "revoked" }
  | { kind: "quota_full" }
  | { kind: "throttled"; retryAfterMs: number | null }
  | { kind: "transient" }
  | { kind: "not_found" }
  | { kind: "permanent" };

/** Null for what is not the destination's failure (Instagram, its CDN, a bug). */
export function classifyDestinationError(err: unknown): DestinationFailure | null {
  if (err instanceof DestinationRevokedError) return { kind: "revoked" };
  if (!(err instanceof ProviderError) || SOURCES.has(err.provider)) return null;
  if (err.kind === "token_invalid") return { kind: "revoked" };
  if (err.kind === "quota") return { kind: "quota_full" };
  if (err.kind === "throttled") return { kind: "throttled", retryAfterMs: err.retryAfterMs };
  if (err.kind === "not_found") return { kind: "not_found" };
  return isRetryable(err) ? { kind: "transient" } : { kind: "permanent" };
}

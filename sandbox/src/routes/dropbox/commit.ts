import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Ctx } from "../../context.ts";
import { corruptCommit, destinationFaults } from "../../destination-faults.ts";
import type { DropboxAccount } from "../../state.ts";
import {
  contentHash,
  DropboxBadInput,
  DropboxRouteError,
  ensureParents,
  metadata,
  newId,
  pathKey,
  usedBytes,
} from "./common.ts";

const parseMs = (v: unknown) => (typeof v === "string" ? Date.parse(v) : Number.NaN);

/** What a commit answers: the file's metadata, as Dropbox sends it. */
type FileMetadata = ReturnType<typeof metadata>;

/** A session's bytes already joined into a blob (`files/upload_session/finish`), hashed on the way. */
export interface JoinedBlob {
  blob: string;
  size: number;
  contentHash: string;
}

/** Writes a whole file of `sent` bytes at `path` under the commit's mode; answers its metadata. */
export function commit(
  ctx: Ctx,
  account: DropboxAccount,
  sent: Buffer,
  c: Record<string, unknown>,
  hash?: unknown,
): FileMetadata {
  // A corrupted commit stores other bytes than were sent: the hash then tells.
  const data = corruptCommit(destinationFaults(ctx, "dropbox"), sent);
  const blob = `dropbox-${randomBytes(12).toString("hex")}`;
  writeFileSync(join(ctx.blobDir, blob), data);
  return settle(ctx, account, { blob, size: data.length, contentHash: contentHash(data) }, c, hash);
}

/**
 * Commits bytes already in a blob (a session's, joined at its finish): the blob becomes the
 * file's, or is removed when the commit is refused or the same file is already there.
 */
export function commitJoined(
  ctx: Ctx,
  account: DropboxAccount,
  joined: JoinedBlob,
  c: Record<string, unknown>,
  hash?: unknown,
): FileMetadata {
  const path = join(ctx.blobDir, joined.blob);
  if (destinationFaults(ctx, "dropbox").corrupt > 0) {
    // A corrupted commit (a fault asked for) works on the bytes themselves.
    const bytes = readFileSync(path);
    rmSync(path, { force: true });
    return commit(ctx, account, bytes, c, hash);
  }
  return settle(ctx, account, joined, c, hash);
}

/** The blob becomes the file's, or is removed: refused, or the same file already there. */
function settle(
  ctx: Ctx,
  account: DropboxAccount,
  joined: JoinedBlob,
  c: Record<string, unknown>,
  hash?: unknown,
): FileMetadata {
  const path = join(ctx.blobDir, joined.blob);
  try {
    const file = commitBlob(ctx, account, joined, c, hash);
    if (file.blob !== joined.blob) rmSync(path, { force: true });
    return file.metadata;
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
}

/** The commit's checks, then the entry; answers the file's blob (another one: already there). */
function commitBlob(
  ctx: Ctx,
  account: DropboxAccount,
  joined: JoinedBlob,
  c: Record<string, unknown>,
  hash?: unknown,
) {
  const key = pathKey(account, c.path);
  if (!key) throw new DropboxBadInput("'path' must not be the root");
  const display = String(c.path);
  const { size, contentHash: computed } = joined;
  if (typeof hash === "string" && hash !== computed) {
    throw new DropboxRouteError("content_hash_mismatch", { ".tag": "content_hash_mismatch" });
  }
  const mode = c.mode as string | { ".tag": string; update?: string } | undefined;
  const tag = typeof mode === "string" ? mode : (mode?.[".tag"] ?? "add");
  const existing = account.entries[key];
  const conflict = (kind: "file" | "folder") =>
    new DropboxRouteError(`path/conflict/${kind}`, {
      ".tag": "path",
      reason: { ".tag": "conflict", conflict: { ".tag": kind } },
      upload_session_id: "",
    });
  if (existing?.tag === "folder") throw conflict("folder");
  if (existing && tag === "add" && existing.contentHash !== computed) throw conflict("file");
  if (existing && tag === "update" && typeof mode === "object" && existing.rev !== mode.update)
    throw conflict("file");
  // The same content: Dropbox answers the existing file.
  if (existing && tag === "add") return { blob: existing.blob, metadata: metadata(key, existing) };
  if (usedBytes(account) - (existing?.size ?? 0) + size > account.quotaBytes) {
    throw new DropboxRouteError("path/insufficient_space", {
      ".tag": "path",
      reason: { ".tag": "insufficient_space" },
      upload_session_id: "",
    });
  }
  ensureParents(ctx, account, display);
  const { blob } = joined;
  if (existing?.blob) rmSync(join(ctx.blobDir, existing.blob), { force: true });
  const clientModified = parseMs(c.client_modified);
  const entry = {
    id: existing?.id ?? newId("id:"),
    tag: "file" as const,
    pathDisplay: display,
    blob,
    size,
    contentHash: computed,
    rev: randomBytes(9).toString("hex"),
    clientModified: Number.isNaN(clientModified) ? ctx.now() : clientModified,
    serverModified: ctx.now(),
  };
  account.entries[key] = entry;
  ctx.changed();
  return { blob, metadata: metadata(key, entry) };
}

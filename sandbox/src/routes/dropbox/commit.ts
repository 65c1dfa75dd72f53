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

/** A session's bytes already joined into a blob (`files/upload_session/finish`), hashed on the way. */
export interface JoinedBlob {
  blob: string;
  size: number;
  contentHash: string;
}

/**
 * Writes a whole file at `path` under the commit's mode; answers its metadata. `sent` is the
 * bytes, or a blob they were joined into, which becomes the file's or is removed on a refusal.
 */
export function commit(
  ctx: Ctx,
  account: DropboxAccount,
  sent: Buffer | JoinedBlob,
  c: Record<string, unknown>,
  hash?: unknown,
) {
  const faults = destinationFaults(ctx, "dropbox");
  if (!Buffer.isBuffer(sent) && faults.corrupt > 0) {
    // A corrupted commit (a fault asked for) works on the bytes themselves.
    const bytes = readFileSync(join(ctx.blobDir, sent.blob));
    rmSync(join(ctx.blobDir, sent.blob), { force: true });
    return commit(ctx, account, bytes, c, hash);
  }
  if (Buffer.isBuffer(sent)) return commitOf(ctx, account, corruptCommit(faults, sent), c, hash);
  try {
    return commitOf(ctx, account, sent, c, hash);
  } catch (err) {
    rmSync(join(ctx.blobDir, sent.blob), { force: true });
    throw err;
  }
}

function commitOf(
  ctx: Ctx,
  account: DropboxAccount,
  data: Buffer | JoinedBlob,
  c: Record<string, unknown>,
  hash?: unknown,
) {
  const key = pathKey(account, c.path);
  if (!key) throw new DropboxBadInput("'path' must not be the root");
  const display = String(c.path);
  const joined = Buffer.isBuffer(data) ? null : data;
  const size = joined ? joined.size : (data as Buffer).length;
  // A corrupted commit stored other bytes than were sent: the hash then tells.
  const computed = joined ? joined.contentHash : contentHash(data as Buffer);
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
  if (existing && tag === "add") {
    // The same content: Dropbox answers the existing file.
    if (joined) rmSync(join(ctx.blobDir, joined.blob), { force: true });
    return metadata(key, existing);
  }
  if (usedBytes(account) - (existing?.size ?? 0) + size > account.quotaBytes) {
    throw new DropboxRouteError("path/insufficient_space", {
      ".tag": "path",
      reason: { ".tag": "insufficient_space" },
      upload_session_id: "",
    });
  }
  ensureParents(ctx, account, display);
  const blob = joined?.blob ?? `dropbox-${randomBytes(12).toString("hex")}`;
  if (!joined) writeFileSync(join(ctx.blobDir, blob), data as Buffer);
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
  return metadata(key, entry);
}

import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
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

/** Writes a whole file at `path` under the commit's mode; answers its metadata. */
export function commit(
  ctx: Ctx,
  account: DropboxAccount,
  sent: Buffer,
  c: Record<string, unknown>,
  hash?: unknown,
) {
  const key = pathKey(account, c.path);
  if (!key) throw new DropboxBadInput("'path' must not be the root");
  const display = String(c.path);
  // A corrupted commit stores other bytes than were sent: the hash then tells.
  const data = corruptCommit(destinationFaults(ctx, "dropbox"), sent);
  const computed = contentHash(data);
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
  if (existing && tag === "add") return metadata(key, existing); // the same content: Dropbox answers the existing file
  if (usedBytes(account) - (existing?.size ?? 0) + data.length > account.quotaBytes) {
    throw new DropboxRouteError("path/insufficient_space", {
      ".tag": "path",
      reason: { ".tag": "insufficient_space" },
      upload_session_id: "",
    });
  }
  ensureParents(ctx, account, display);
  const blob = `dropbox-${randomBytes(12).toString("hex")}`;
  writeFileSync(join(ctx.blobDir, blob), data);
  if (existing?.blob) rmSync(join(ctx.blobDir, existing.blob), { force: true });
  const clientModified = parseMs(c.client_modified);
  const entry = {
    id: existing?.id ?? newId("id:"),
    tag: "file" as const,
    pathDisplay: display,
    blob,
    size: data.length,
    contentHash: computed,
    rev: randomBytes(9).toString("hex"),
    clientModified: Number.isNaN(clientModified) ? ctx.now() : clientModified,
    serverModified: ctx.now(),
  };
  account.entries[key] = entry;
  ctx.changed();
  return metadata(key, entry);
}

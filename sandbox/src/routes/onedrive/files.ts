import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FastifyRequest } from "fastify";
import type { Ctx } from "../../context.ts";
import { corruptCommit, destinationFaults } from "../../destination-faults.ts";
import type { OneDriveItem, OneDriveUser } from "../../state.ts";
import { childNamed, GraphApiError, itemId, usedBytes } from "./common.ts";
import { quickXorHash } from "./quickxor.ts";

/** Upload fragments are multiples of 320 KiB, but for the last; each less than this (60 MiB). */
export const FRAGMENT_UNIT = 320 * 1024;
export const MAX_FRAGMENT = 60 * 1024 * 1024;
/** A simple upload (`PUT …/content`) takes at most 250 MB. */
export const MAX_SIMPLE = 250 * 1000 * 1000;
export const SESSION_TTL_MS = 7 * 86_400_000;

export async function readBody(req: FastifyRequest, limit: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new GraphApiError(413, "requestTooLarge", "The request is too large.");
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

export const json = (body: Buffer): Record<string, unknown> => {
  if (body.length === 0) return {};
  try {
    return JSON.parse(body.toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new GraphApiError(400, "BadRequest", "Unable to read JSON request payload.");
  }
};

export type Conflict = "fail" | "replace" | "rename";
export const conflictOf = (v: unknown, fallback: Conflict): Conflict =>
  v === "fail" || v === "replace" || v === "rename" ? v : fallback;
export const timeOf = (v: unknown) =>
  typeof v === "string" && !Number.isNaN(Date.parse(v)) ? Date.parse(v) : undefined;

/** Writes a file's bytes under `parent` as `name` (conflict behaviour as asked); answers it and whether it is new. */
export function commitFile(
  ctx: Ctx,
  user: OneDriveUser,
  parent: OneDriveItem,
  wanted: string,
  sent: Buffer,
  opts: { conflict: Conflict; fsCreated?: number; fsModified?: number; mimeType?: string },
) {
  // A corrupted commit stores other bytes than were sent: quickXorHash then tells.
  const data = corruptCommit(destinationFaults(ctx, "onedrive"), sent);
  let name = wanted;
  let existing = childNamed(user, parent.id, name);
  if (existing && opts.conflict === "fail")
    throw new GraphApiError(409, "nameAlreadyExists", "The specified item name already exists.");
  if (existing?.folder)
    throw new GraphApiError(409, "nameAlreadyExists", "A folder with this name already exists.");
  if (existing && opts.conflict === "rename") {
    const dot = wanted.lastIndexOf(".");
    for (let n = 1; existing; n++) {
      name = dot > 0 ? `${wanted.slice(0, dot)} ${n}${wanted.slice(dot)}` : `${wanted} ${n}`;
      existing = childNamed(user, parent.id, name);
    }
  }
  if (usedBytes(user) - (existing?.size ?? 0) + data.length > user.quotaBytes) {
    throw new GraphApiError(507, "quotaLimitReached", "Insufficient Space Available");
  }
  const blob = `onedrive-${randomBytes(12).toString("hex")}`;
  writeFileSync(join(ctx.blobDir, blob), data);
  if (existing?.blob) rmSync(join(ctx.blobDir, existing.blob), { force: true });
  const now = ctx.now();
  const item: OneDriveItem = {
    id: existing?.id ?? itemId(),
    parent: parent.id,
    name,
    folder: false,
    blob,
    size: data.length,
    quickXorHash: quickXorHash(data),
    mimeType: opts.mimeType ?? "application/octet-stream",
    created: existing?.created ?? now,
    modified: now,
    fsCreated: opts.fsCreated ?? existing?.fsCreated ?? now,
    fsModified: opts.fsModified ?? now,
  };
  user.items[item.id] = item;
  ctx.changed();
  return { item, created: !existing };
}

/** Microsoft Graph's drive items for an app folder, and resumable upload sessions. */

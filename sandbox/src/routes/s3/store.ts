import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import type { Ctx } from "../../context.ts";
import { SANDBOX_CREDENTIALS } from "../../credentials.ts";
import type { S3Bucket, S3Object } from "../../state.ts";
import { S3Error } from "./sigv4.ts";

/** The buckets, with the demo bucket created on first use (state saved before S3 had none). */
export function buckets(ctx: Ctx): Record<string, S3Bucket> {
  if (!ctx.state.s3) {
    const name = SANDBOX_CREDENTIALS.s3.bucket;
    ctx.state.s3 = { [name]: { name, created: ctx.now(), objects: {}, uploads: {} } };
    ctx.changed();
  }
  return ctx.state.s3;
}

export function bucketOf(ctx: Ctx, name: string): S3Bucket {
  const bucket = buckets(ctx)[name];
  if (!bucket) {
    throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist", {
      BucketName: name,
    });
  }
  return bucket;
}

export const blobPath = (ctx: Ctx, blob: string) => join(ctx.blobDir, blob);

export function usedBytes(bucket: S3Bucket): number {
  let n = 0;
  for (const o of Object.values(bucket.objects)) n += o.size;
  return n;
}

/** A full bucket (MinIO's full disk, B2's storage cap) refuses what would not fit. */
export function assertRoom(bucket: S3Bucket, adding: number, replacing = 0): void {
  if (
    bucket.quotaBytes !== undefined &&
    usedBytes(bucket) - replacing + adding > bucket.quotaBytes
  ) {
    throw new S3Error(
      507,
      "XMinioStorageFull",
      "Storage backend has reached its minimum free drive threshold. Please delete a few objects to proceed.",
    );
  }
}

/**
 * Writes the blobs one after the other into a new blob, streamed (a 300 MB object is never one
 * buffer here), its first byte flipped when a corrupted write was asked for (`corruptInPlace`).
 */
export async function joinBlobs(ctx: Ctx, blobs: readonly string[], into: string): Promise<void> {
  const out = createWriteStream(blobPath(ctx, into));
  try {
    for (const blob of blobs)
      for await (const piece of createReadStream(blobPath(ctx, blob)))
        if (!out.write(piece)) await once(out, "drain");
    out.end();
    await finished(out);
  } catch (err) {
    out.destroy();
    rmSync(blobPath(ctx, into), { force: true });
    throw err;
  }
  corruptInPlace(ctx, into);
}

/**
 * Flips a blob's first byte in place when the control API asked for a corrupted write (and the
 * blob has one); answers whether it did.
 */
export function corruptInPlace(ctx: Ctx, blob: string): boolean {
  if (ctx.s3CorruptWrites <= 0) return false;
  const fd = openSync(blobPath(ctx, blob), "r+");
  try {
    const first = Buffer.alloc(1);
    if (readSync(fd, first, 0, 1, 0) !== 1) return false;
    ctx.s3CorruptWrites--;
    first[0] = (first[0] as number) ^ 0xff;
    writeSync(fd, first, 0, 1, 0);
    return true;
  } finally {
    closeSync(fd);
  }
}

export const md5hex = (data: Buffer) => createHash("md5").update(data).digest("hex");

export function dropObject(ctx: Ctx, bucket: S3Bucket, key: string): S3Object | undefined {
  const o = bucket.objects[key];
  if (!o) return undefined;
  delete bucket.objects[key];
  rmSync(blobPath(ctx, o.blob), { force: true });
  return o;
}

/** `x-amz-meta-*` headers, without the prefix (S3 lower-cases the names). */
export function metadataOf(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith("x-amz-meta-") && typeof value === "string") {
      out[name.slice("x-amz-meta-".length)] = value;
    }
  }
  return out;
}

/**
 * `If-None-Match: *` (write only if absent) and `If-Match: <etag>` (only over that version), as
 * S3's conditional writes: 412 PreconditionFailed otherwise.
 */
export function checkConditions(headers: Record<string, unknown>, existing: S3Object | undefined) {
  const noneMatch = headers["if-none-match"];
  if (noneMatch === "*" && existing) {
    throw new S3Error(
      412,
      "PreconditionFailed",
      "At least one of the pre-conditions you specified did not hold",
      { Condition: "If-None-Match" },
    );
  }
  const match = headers["if-match"];
  if (typeof match === "string" && (!existing || existing.etag !== match)) {
    throw new S3Error(
      existing ? 412 : 404,
      existing ? "PreconditionFailed" : "NoSuchKey",
      existing
        ? "At least one of the pre-conditions you specified did not hold"
        : "The specified key does not exist.",
    );
  }
}

export const xmlEscape = (v: string) =>
  v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
export const S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/";

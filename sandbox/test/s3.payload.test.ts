import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { useHarness } from "./helpers.ts";

/**
 * A PutObject's or UploadPart's body is written as it arrives (never held whole): what is
 * refused once it has arrived must leave the store as it was, blobs on disk included.
 */
const dataDir = mkdtempSync(join(tmpdir(), "keepsake-sandbox-s3-"));
const h = useHarness({ dataDir });
const S3 = SANDBOX_CREDENTIALS.s3;
const Bucket = S3.bucket;
const MiB = 1024 * 1024;

const s3 = () =>
  new S3Client({
    endpoint: `${h.url}/s3`,
    forcePathStyle: true,
    region: S3.region,
    credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: S3.secretAccessKey },
    maxAttempts: 1,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
const filled = (n: number, byte: number) => Buffer.alloc(n, byte);
const digest = (b: Buffer, encoding: "hex" | "base64") =>
  createHash("md5").update(b).digest(encoding);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: { name: string; $metadata?: { httpStatusCode?: number } }) => ({
      name: err.name,
      status: err.$metadata?.httpStatusCode,
    }),
  );
/** The S3 blobs on disk (objects and parts). */
const blobs = () => readdirSync(join(dataDir, "drive")).filter((f) => f.startsWith("s3-"));

describe("a payload refused once it arrived", () => {
  it("keeps the part S3 holds, makes no object and leaves no blob behind", async () => {
    const c = s3();
    const Key = "refused.bin";
    const { UploadId } = await c.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const first = filled(6 * MiB, 1);
    const part = { Bucket, Key, UploadId, PartNumber: 1 };
    await c.send(new UploadPartCommand({ ...part, Body: first }));
    const held = blobs();

    // The same part again, other bytes under the first bytes' Content-MD5: refused.
    expect(
      await failure(
        c.send(
          new UploadPartCommand({
            ...part,
            Body: filled(6 * MiB, 2),
            ContentMD5: digest(first, "base64"),
          }),
        ),
      ),
    ).toEqual({ name: "BadDigest", status: 400 });
    const listed = await c.send(new ListPartsCommand({ Bucket, Key, UploadId }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual([
      [1, `"${digest(first, "hex")}"`, 6 * MiB],
    ]);

    // An object refused for its digest, then for the room it needs.
    const body = filled(MiB, 3);
    expect(
      await failure(
        c.send(
          new PutObjectCommand({
            Bucket,
            Key: "o.bin",
            Body: body,
            ContentMD5: digest(first, "base64"),
          }),
        ),
      ),
    ).toEqual({ name: "BadDigest", status: 400 });
    await h.ctl("s3/quota", { bucket: Bucket, bytes: MiB - 1 });
    expect(
      await failure(c.send(new PutObjectCommand({ Bucket, Key: "o.bin", Body: body }))),
    ).toEqual({ name: "XMinioStorageFull", status: 507 });
    // A key taken (If-None-Match: *) refuses the new bytes and keeps the object there.
    await h.ctl("s3/quota", { bucket: Bucket, bytes: null });
    const kept = await c.send(new PutObjectCommand({ Bucket, Key: "o.bin", Body: body }));
    expect(
      await failure(
        c.send(
          new PutObjectCommand({ Bucket, Key: "o.bin", Body: filled(10, 4), IfNoneMatch: "*" }),
        ),
      ),
    ).toEqual({ name: "PreconditionFailed", status: 412 });
    const there = await c.send(new HeadObjectCommand({ Bucket, Key: "o.bin" }));
    expect([there.ETag, there.ContentLength]).toEqual([kept.ETag, MiB]);
    expect(blobs().length).toBe(held.length + 1);
    expect(blobs()).toEqual(expect.arrayContaining(held));
  });
});

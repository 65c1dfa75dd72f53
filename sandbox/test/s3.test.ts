import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { SANDBOX_CREDENTIALS } from "../src/index.ts";
import { useHarness } from "./helpers.ts";

/** The S3-compatible store, spoken to with the official AWS SDK as an integration would. */
const h = useHarness();
const S3 = SANDBOX_CREDENTIALS.s3;
const Bucket = S3.bucket;
const MiB = 1024 * 1024;

function client(options: Partial<S3ClientConfig> = {}, secret: string = S3.secretAccessKey) {
  return new S3Client({
    endpoint: `${h.url}/s3`,
    forcePathStyle: true,
    region: S3.region,
    credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: secret },
    maxAttempts: 1,
    ...options,
  });
}
/** What R2, B2 and older MinIO need: no flexible checksums unless required. */
const plain = () =>
  client({
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
const bytes = (n: number, seed = 3) => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 7 + seed) & 0xff;
  return b;
};
const md5 = (b: Buffer) => createHash("md5").update(b).digest("hex");
const read = async (key: string, c = plain()) =>
  Buffer.from(
    await (await c.send(new GetObjectCommand({ Bucket, Key: key }))).Body!.transformToByteArray(),
  );
const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error("expected a failure");
};

describe("objects", () => {
  it("put, head, get (with ranges), list and delete, with metadata and md5 ETags", async () => {
    const s3 = plain();
    const body = bytes(300_000);
    const put = await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: "Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
        Body: body,
        ContentType: "image/jpeg",
        Metadata: { "keepsake-media-id": "1790001", "posted-at": "2026-05-01T10:00:00Z" },
      }),
    );
    expect(put.ETag).toBe(`"${md5(body)}"`);
    const head = await s3.send(
      new HeadObjectCommand({ Bucket, Key: "Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg" }),
    );
    expect(head).toMatchObject({
      ContentLength: 300_000,
      ContentType: "image/jpeg",
      Metadata: { "keepsake-media-id": "1790001", "posted-at": "2026-05-01T10:00:00Z" },
    });
    expect(await read("Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg")).toEqual(body);
    const part = await s3.send(
      new GetObjectCommand({
        Bucket,
        Key: "Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
        Range: "bytes=10-19",
      }),
    );
    expect(Buffer.from(await part.Body!.transformToByteArray())).toEqual(body.subarray(10, 20));

    for (const n of [2, 3, 4]) {
      await s3.send(
        new PutObjectCommand({ Bucket, Key: `Keepsake/@lumen.studio/2026/f${n}.json`, Body: "{}" }),
      );
    }
    const first = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: "Keepsake/@lumen.studio/2026/", MaxKeys: 2 }),
    );
    expect(first.Contents?.map((o) => o.Key)).toHaveLength(2);
    expect(first.IsTruncated).toBe(true);
    const rest = await s3.send(
      new ListObjectsV2Command({
        Bucket,
        Prefix: "Keepsake/@lumen.studio/2026/",
        ContinuationToken: first.NextContinuationToken,
      }),
    );
    expect([...(first.Contents ?? []), ...(rest.Contents ?? [])].map((o) => o.Key)).toEqual([
      "Keepsake/@lumen.studio/2026/2026-05-01_photo_1.jpg",
      "Keepsake/@lumen.studio/2026/f2.json",
      "Keepsake/@lumen.studio/2026/f3.json",
      "Keepsake/@lumen.studio/2026/f4.json",
    ]);
    const folders = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: "Keepsake/", Delimiter: "/" }),
    );
    expect(folders.CommonPrefixes?.map((p) => p.Prefix)).toEqual(["Keepsake/@lumen.studio/"]);

    await s3.send(new DeleteObjectCommand({ Bucket, Key: "Keepsake/@lumen.studio/2026/f2.json" }));
    expect(
      await failure(
        s3.send(new HeadObjectCommand({ Bucket, Key: "Keepsake/@lumen.studio/2026/f2.json" })),
      ),
    ).toEqual({ name: "NotFound", status: 404 });
    expect(await failure(s3.send(new GetObjectCommand({ Bucket, Key: "nope" })))).toEqual({
      name: "NoSuchKey",
      status: 404,
    });
    expect(
      await failure(s3.send(new GetObjectCommand({ Bucket: "no-such-bucket", Key: "x" }))),
    ).toEqual({ name: "NoSuchBucket", status: 404 });
  });

  it("refuses a wrong secret and an unknown key id; signs streamed bodies too", async () => {
    expect(
      await failure(
        client({}, "not-the-secret").send(new PutObjectCommand({ Bucket, Key: "a", Body: "x" })),
      ),
    ).toEqual({ name: "SignatureDoesNotMatch", status: 403 });
    const stranger = new S3Client({
      endpoint: `${h.url}/s3`,
      forcePathStyle: true,
      region: S3.region,
      credentials: { accessKeyId: "AKIAOTHERKEY", secretAccessKey: S3.secretAccessKey },
      maxAttempts: 1,
    });
    expect(
      await failure(stranger.send(new PutObjectCommand({ Bucket, Key: "a", Body: "x" }))),
    ).toEqual({ name: "InvalidAccessKeyId", status: 403 });
    // The SDK's defaults (a CRC32 checksum, aws-chunked for a stream) are what AWS itself takes.
    const body = bytes(200_000, 9);
    await client().send(
      new PutObjectCommand({
        Bucket,
        Key: "streamed.bin",
        Body: Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]),
        ContentLength: body.length,
      }),
    );
    expect(await read("streamed.bin")).toEqual(body);
    const listing = await h.ctl<{ objects: { key: string; checksums: Record<string, string> }[] }>(
      "s3/objects",
      undefined,
      "GET",
    );
    expect(listing.objects.find((o) => o.key === "streamed.bin")?.checksums.crc32).toEqual(
      expect.any(String),
    );
  });

  it("If-None-Match: * never overwrites", async () => {
    const s3 = plain();
    await s3.send(new PutObjectCommand({ Bucket, Key: "once.json", Body: "1", IfNoneMatch: "*" }));
    expect(
      await failure(
        s3.send(new PutObjectCommand({ Bucket, Key: "once.json", Body: "2", IfNoneMatch: "*" })),
      ),
    ).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await read("once.json")).toString()).toBe("1");
  });

  it("stores JSON and text bodies as sent (no body parser in the way)", async () => {
    const s3 = plain();
    for (const [Key, ContentType] of [
      ["a.json", "application/json"],
      ["b.txt", "text/plain"],
    ]) {
      await s3.send(new PutObjectCommand({ Bucket, Key, Body: '{"x":1}', ContentType }));
      expect((await read(Key!)).toString()).toBe('{"x":1}');
    }
  });
});

describe("multipart uploads", () => {
  async function upload(s3: S3Client, key: string, sizes: number[], ifNoneMatch?: string) {
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({
        Bucket,
        Key: key,
        ContentType: "video/mp4",
        Metadata: { "keepsake-media-id": "v1" },
      }),
    );
    const parts = sizes.map((n, i) => bytes(n, i));
    const etags: string[] = [];
    for (const [i, body] of parts.entries()) {
      etags.push(
        (
          await s3.send(
            new UploadPartCommand({ Bucket, Key: key, UploadId, PartNumber: i + 1, Body: body }),
          )
        ).ETag!,
      );
    }
    const listed = await s3.send(new ListPartsCommand({ Bucket, Key: key, UploadId }));
    expect(listed.Parts?.map((p) => p.Size)).toEqual(sizes);
    const done = s3.send(
      new CompleteMultipartUploadCommand({
        Bucket,
        Key: key,
        UploadId,
        ...(ifNoneMatch ? { IfNoneMatch: ifNoneMatch } : {}),
        MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
      }),
    );
    const again = () =>
      s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
        }),
      );
    return { parts, done, again };
  }

  it("parts, resumable by ListParts, completed into one object with an -N ETag", {
    timeout: 90_000,
  }, async () => {
    const s3 = plain();
    const { parts, done } = await upload(s3, "video.mp4", [5 * MiB, 5 * MiB, MiB]);
    const result = await done;
    expect(result.ETag).toMatch(/^"[0-9a-f]{32}-3"$/);
    expect(await read("video.mp4")).toEqual(Buffer.concat(parts));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: "video.mp4" }));
    expect(head.Metadata).toEqual({ "keepsake-media-id": "v1" });
  });

  it("a small middle part is refused; on the r2 flavour unequal parts and the SDK's checksums are too", {
    timeout: 90_000,
  }, async () => {
    const s3 = plain();
    expect(await failure((await upload(s3, "small.mp4", [MiB, MiB])).done)).toEqual({
      name: "EntityTooSmall",
      status: 400,
    });
    await h.ctl("s3/flavor", { flavor: "r2" });
    expect(await failure((await upload(s3, "r2.mp4", [6 * MiB, 5 * MiB, MiB])).done)).toEqual({
      name: "InvalidPart",
      status: 400,
    });
    const equal = await upload(s3, "r2-equal.mp4", [5 * MiB, 5 * MiB, 2 * MiB]);
    await equal.done;
    expect(
      await failure(client().send(new PutObjectCommand({ Bucket, Key: "r2.json", Body: "{}" }))),
    ).toEqual({ name: "NotImplemented", status: 501 });
  });

  it("a completion whose answer is lost is made all the same; completing again finds no upload", async () => {
    const s3 = plain();
    await h.ctl("s3/lose-answer", { endpoint: "s3.multipart.complete" });
    const { parts, done, again } = await upload(s3, "lost.mp4", [MiB]);
    expect(await failure(done)).toMatchObject({ status: undefined });
    expect(await read("lost.mp4")).toEqual(Buffer.concat(parts));
    expect(await failure(again())).toEqual({ name: "NoSuchUpload", status: 404 });
  });

  it("If-None-Match: * holds at completion", async () => {
    const s3 = plain();
    await s3.send(new PutObjectCommand({ Bucket, Key: "taken.mp4", Body: "x" }));
    expect(await failure((await upload(s3, "taken.mp4", [MiB], "*")).done)).toEqual({
      name: "PreconditionFailed",
      status: 412,
    });
  });
});

describe("faults", () => {
  it("SlowDown, a full bucket, a cut body and a corrupted write", async () => {
    const s3 = plain();
    await h.ctl("faults", { endpoint: "s3.put", error: "s3:SlowDown", count: 1 });
    expect(
      await failure(s3.send(new PutObjectCommand({ Bucket, Key: "slow", Body: "x" }))),
    ).toEqual({ name: "SlowDown", status: 503 });
    await s3.send(new PutObjectCommand({ Bucket, Key: "slow", Body: "x" }));

    await h.ctl("s3/quota", { bucket: Bucket, bytes: 10 });
    expect(
      await failure(s3.send(new PutObjectCommand({ Bucket, Key: "big", Body: bytes(100) }))),
    ).toEqual({ name: "XMinioStorageFull", status: 507 });
    await h.ctl("s3/quota", { bucket: Bucket, bytes: null });

    await h.ctl("s3/cut", { after_bytes: 1000 });
    await expect(
      s3.send(new PutObjectCommand({ Bucket, Key: "cut.bin", Body: bytes(100_000) })),
    ).rejects.toThrow();
    expect(await failure(s3.send(new HeadObjectCommand({ Bucket, Key: "cut.bin" })))).toMatchObject(
      { status: 404 },
    );

    // A corrupted write stores other bytes than arrived, and says so: its ETag is the md5 of
    // what is stored (for an object as for a part), so a client comparing it finds out.
    await h.ctl("s3/corrupt", { count: 1 });
    const body = bytes(5000);
    const put = await s3.send(new PutObjectCommand({ Bucket, Key: "flipped.bin", Body: body }));
    const stored = await read("flipped.bin");
    expect(md5(stored)).not.toBe(md5(body));
    expect(put.ETag).toBe(`"${md5(stored)}"`);
    const ok = await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: "checked.bin",
        Body: body,
        ContentMD5: createHash("md5").update(body).digest("base64"),
      }),
    );
    expect(ok.ETag).toBe(`"${md5(body)}"`);
    expect(md5(await read("checked.bin"))).toBe(md5(body));
  });

  it("a body the client breaks off stores nothing: no object, no part", async () => {
    const s3 = plain();
    // 300 KB of the length announced, then the request is broken off mid-body (as Keepsake
    // does when a download breaks off: its abort signal).
    const brokenOff = async <T>(send: (body: Readable, abortSignal: AbortSignal) => Promise<T>) => {
      const abort = new AbortController();
      const body = Readable.from(
        (async function* () {
          yield bytes(150_000);
          yield bytes(150_000);
          setTimeout(() => abort.abort(), 50);
          await new Promise(() => {});
        })(),
      );
      await expect(send(body, abort.signal)).rejects.toThrow();
      body.destroy();
    };
    await brokenOff((Body, abortSignal) =>
      s3.send(new PutObjectCommand({ Bucket, Key: "broken.bin", Body, ContentLength: MiB }), {
        abortSignal,
      }),
    );
    expect(
      await failure(s3.send(new HeadObjectCommand({ Bucket, Key: "broken.bin" }))),
    ).toMatchObject({ status: 404 });

    const Key = "broken-parts.bin";
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    await brokenOff((Body, abortSignal) =>
      s3.send(
        new UploadPartCommand({
          Bucket,
          Key,
          UploadId,
          PartNumber: 1,
          Body,
          ContentLength: 6 * MiB,
        }),
        { abortSignal },
      ),
    );
    // The sandbox handles the broken request on its side after the client has let go.
    await new Promise((r) => setTimeout(r, 100));
    const parts = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
    expect(parts.Parts ?? []).toEqual([]);
  });
});

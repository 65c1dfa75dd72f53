import { createHash, randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CallInTransactionError, withinTransactionScope } from "../../src/lib/transaction-scope.ts";
import { ProviderError } from "../../src/providers/provider-error.ts";
import { withBackoff } from "../../src/providers/retry.ts";
import { createS3Client, POSTED_AT_META } from "../../src/providers/s3/s3.client.ts";
import {
  checkS3Settings,
  openS3Settings,
  sealS3Settings,
} from "../../src/providers/s3/s3-config.ts";
import {
  S3KeyTakenError,
  type S3MultipartState,
  type S3UploadClient,
  uploadToS3,
} from "../../src/providers/s3/s3-upload.ts";
import { bytes, control, pieces, recordingRetry, s3Settings } from "../support/destinations.ts";

/** The S3 client against the sandbox's S3-compatible store, as AWS and as R2/B2/older MinIO. */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
  await control(sandbox, "s3/flavor", { flavor: "r2" });
});

const MiB = 1024 * 1024;
const POSTED = "2023-07-08T09:10:11.000Z";
const client = (prefix = "keepsake/") => createS3Client(s3Settings(sandbox, prefix));
const md5 = (b: Uint8Array) => createHash("md5").update(b).digest("hex");
const failureOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ProviderError) return err;
    throw err;
  }
  throw new Error("expected a failure");
};
const partCalls = async () =>
  (await control<{ calls: Record<string, number> }>(sandbox, "calls")).calls["s3.multipart.part"] ??
  0;
const stored = async () =>
  await control<{ objects: { key: string; size: number }[]; uploads: unknown[] }>(
    sandbox,
    "s3/objects",
  );

describe("S3 connection", () => {
  it("the secret is sealed at rest and opened again; bad settings are named", () => {
    const key = randomBytes(32);
    const settings = s3Settings(sandbox, "backups/");
    const sealed = sealS3Settings(key, settings);
    expect(JSON.stringify(sealed)).not.toContain(settings.secretAccessKey);
    expect(sealed).toMatchObject({ accessKeyId: settings.accessKeyId, bucket: settings.bucket });
    expect(openS3Settings(key, sealed)).toEqual(settings);
    expect(() => openS3Settings(randomBytes(32), sealed)).toThrow();
    expect(checkS3Settings(settings)).toBeNull();
    expect(checkS3Settings({ ...settings, endpoint: "ftp://x" })).toMatch(/http/);
    expect(checkS3Settings({ ...settings, bucket: "A_B" })).toMatch(/bucket/);
    expect(checkS3Settings({ ...settings, prefix: "/x" })).toMatch(/prefix/);
  });
});

describe("S3 objects", () => {
  it("a small file is one PUT with Content-MD5 and the post time; never overwritten unless asked", async () => {
    const s3 = client();
    const data = bytes(70_000);
    const put = await uploadToS3(s3, {
      key: "@lumen.studio/2023/photo.jpg",
      write: {
        contentType: "image/jpeg",
        postedAt: POSTED,
        metadata: { "keepsake-media-id": "1790" },
      },
      source: pieces(data),
      total: data.length,
    });
    expect(put).toEqual({ etag: md5(data), size: data.length });
    const head = await s3.head("@lumen.studio/2023/photo.jpg");
    expect(head?.metadata).toEqual({ [POSTED_AT_META]: POSTED, "keepsake-media-id": "1790" });
    const again = await failureOf(s3.put("@lumen.studio/2023/photo.jpg", [bytes(10)]));
    expect(again).toMatchObject({ code: "exists" });
    const json = { overwrite: true, contentType: "application/json" };
    await s3.put("@lumen.studio/2023/photo.json", [Buffer.from("{}")], json);
    await s3.put("@lumen.studio/2023/photo.json", [Buffer.from('{"a":1}')], json);
    expect((await s3.read("@lumen.studio/2023/photo.json")).toString()).toBe('{"a":1}');
    expect((await s3.list("@lumen.studio/")).map((o) => o.key)).toEqual([
      "@lumen.studio/2023/photo.jpg",
      "@lumen.studio/2023/photo.json",
    ]);
    expect((await stored()).objects.map((o) => o.key)).toContain(
      "keepsake/@lumen.studio/2023/photo.jpg",
    );
    await s3.remove("@lumen.studio/2023/photo.json");
    expect(await s3.head("@lumen.studio/2023/photo.json")).toBeNull();
  });

  it("a large file: equal parts (R2), recorded before the first part, the multipart ETag checked", async () => {
    const s3 = client();
    const data = bytes(12 * MiB + 3);
    const told: { state: S3MultipartState; parts: number }[] = [];
    const out = await uploadToS3(s3, {
      key: "v.mp4",
      write: { postedAt: POSTED },
      source: pieces(data),
      total: null,
      partBytes: 5 * MiB,
      onSession: async (state) => {
        told.push({ state, parts: await partCalls() });
      },
    });
    expect(told).toEqual([
      { state: { uploadId: expect.any(String), partBytes: 5 * MiB }, parts: 0 },
    ]);
    expect(out.size).toBe(data.length);
    expect(out.etag).toMatch(/-3$/);
    expect(md5(await s3.read("v.mp4"))).toBe(md5(data));
    expect((await stored()).uploads).toEqual([]);
  });

  it("piped parts: the next is sent while S3 stores and answers the one before, never more than two in flight", async () => {
    const s3 = client();
    const data = bytes(21 * MiB, 12);
    let inFlight = 0;
    let most = 0;
    let secondBegan = () => {};
    const began = new Promise<string>((resolve) => {
      secondBegan = () => resolve("part 2 began before part 1 was answered");
    });
    const waited: string[] = [];
    // The real client, its part 1's answer held back until part 2 begins (2 s at most).
    const watched: S3UploadClient = {
      ...s3,
      async uploadPartStream(key, uploadId, number, source, length) {
        inFlight++;
        most = Math.max(most, inFlight);
        if (number === 2) secondBegan();
        try {
          const answer = await s3.uploadPartStream(key, uploadId, number, source, length);
          if (number === 1)
            waited.push(await Promise.race([began, sleep(2000).then(() => "part 2 waited")]));
          return answer;
        } finally {
          inFlight--;
        }
      },
    };
    const out = await uploadToS3(watched, {
      key: "pipelined.mp4",
      write: {},
      source: pieces(data),
      total: data.length,
      partBytes: 5 * MiB,
    });
    expect(waited).toEqual(["part 2 began before part 1 was answered"]);
    expect(most).toBe(2);
    expect(out.etag).toMatch(/-5$/);
    expect(md5(await s3.read("pipelined.mp4"))).toBe(md5(data));
  });

  it("a piped part that is cut is not sent again from memory; resumed, a cut part is, and no part is sent twice", async () => {
    const s3 = client();
    const data = bytes(16 * MiB, 5);
    const upload = { key: "r.mp4", write: {}, total: data.length, partBytes: 5 * MiB };
    let recorded: S3MultipartState | null = null;
    // Of known length, each part is piped from the source: a cut one fails, its upload recorded.
    await control(sandbox, "s3/cut", { after_bytes: MiB });
    const cut = await failureOf(
      uploadToS3(s3, {
        ...upload,
        source: pieces(data),
        onSession: (s) => {
          recorded = s;
        },
      }),
    );
    expect(cut).toMatchObject({ provider: "s3", kind: "network" });
    expect(recorded).not.toBeNull();
    expect(await partCalls()).toBe(1);
    // Resumed, parts are read whole: a cut one is sent again at once; a download that breaks
    // off ends the attempt before its part is sent.
    await control(sandbox, "s3/cut", { after_bytes: MiB });
    async function* breaksOff() {
      yield* pieces(data.subarray(0, 11 * MiB));
      throw new ProviderError("instagram", "network", "The download broke off");
    }
    await expect(
      uploadToS3(s3, { ...upload, source: breaksOff(), session: recorded }),
    ).rejects.toThrow("broke off");
    expect(await partCalls()).toBe(4); // part 1 cut and sent again, part 2
    const out = await uploadToS3(s3, { ...upload, source: pieces(data), session: recorded });
    expect(await partCalls()).toBe(6); // parts 3 and 4 only
    expect(out.etag).toMatch(/-4$/);
    expect(md5(await s3.read("r.mp4"))).toBe(md5(data));
  });

  it("media that ends before its length is never completed shorter, piped or resumed", async () => {
    const s3 = client();
    const data = bytes(12 * MiB, 8);
    const upload = { key: "short.mp4", write: {}, total: data.length, partBytes: 5 * MiB };
    let recorded: S3MultipartState | null = null;
    const short = () => pieces(data.subarray(0, 11 * MiB));
    const piped = await failureOf(
      uploadToS3(s3, {
        ...upload,
        source: short(),
        onSession: (s) => {
          recorded = s;
        },
      }),
    );
    expect(piped).toMatchObject({ provider: "instagram", kind: "network" });
    const resumed = await failureOf(
      uploadToS3(s3, { ...upload, source: short(), session: recorded }),
    );
    expect(resumed).toMatchObject({ provider: "instagram", kind: "network" });
    expect(await s3.head("short.mp4")).toBeNull();
    expect(await partCalls()).toBe(4); // parts 1 and 2 piped, then the resumed upload's part 3
  });

  it("a corrupted part is detected by its ETag and sent again on resume", async () => {
    const s3 = client();
    const data = bytes(11 * MiB, 6);
    await control(sandbox, "s3/corrupt", { count: 1 });
    let recorded: S3MultipartState | null = null;
    const upload = { key: "c.mp4", write: {}, total: data.length, partBytes: 5 * MiB };
    const err = await failureOf(
      uploadToS3(s3, {
        ...upload,
        source: pieces(data),
        onSession: (s) => {
          recorded = s;
        },
      }),
    );
    expect(err).toMatchObject({ kind: "transient", code: "etag_mismatch" });
    expect(await s3.head("c.mp4")).toBeNull();
    await uploadToS3(s3, { ...upload, source: pieces(data), session: recorded });
    expect(md5(await s3.read("c.mp4"))).toBe(md5(data));
  });

  it("a corrupted PUT is found by its ETag and deleted; a taken key says what was sent", async () => {
    const s3 = client();
    const data = bytes(9000, 2);
    await control(sandbox, "s3/corrupt", { count: 1 });
    expect(await failureOf(s3.put("k.bin", [data]))).toMatchObject({ code: "etag_mismatch" });
    expect(await s3.head("k.bin")).toBeNull();
    await s3.put("k.bin", [data]);
    const small = await failureOf(
      uploadToS3(s3, { key: "k.bin", write: {}, source: pieces(bytes(10)), total: 10 }),
    );
    expect(small).toBeInstanceOf(S3KeyTakenError);
    expect(small).toMatchObject({ code: "exists", sent: { etag: md5(bytes(10)), size: 10 } });
    await s3.put("v.mp4", [data]);
    const large = bytes(11 * MiB, 3);
    const err = await failureOf(
      uploadToS3(s3, {
        key: "v.mp4",
        write: {},
        source: pieces(large),
        total: large.length,
        partBytes: 5 * MiB,
      }),
    );
    expect(err).toMatchObject({ code: "exists", sent: { etag: expect.stringMatching(/-3$/) } });
    expect((await stored()).uploads).toEqual([]);
    expect(md5(await s3.read("v.mp4"))).toBe(md5(data));
  });

  it("a completion whose answer was lost is found by HEAD; a lost claim stops before a part", async () => {
    const s3 = client();
    const data = bytes(11 * MiB, 4);
    await control(sandbox, "s3/lose-answer", { endpoint: "s3.multipart.complete" });
    const upload = { key: "l.mp4", write: {}, total: data.length, partBytes: 5 * MiB };
    const out = await uploadToS3(s3, { ...upload, source: pieces(data) });
    expect(out).toEqual({ etag: expect.stringMatching(/-3$/), size: data.length });
    expect((await s3.head("l.mp4"))?.etag).toBe(out.etag);
    let sent = 0;
    const lost = await failureOf(
      uploadToS3(s3, {
        ...upload,
        key: "m.mp4",
        source: pieces(data),
        beforePart: () => {
          if (++sent > 1) throw new ProviderError("s3", "unknown", "lease lost");
        },
      }),
    );
    expect(lost.message).toBe("lease lost");
    expect(await partCalls()).toBe(4);
  });

  it("a full store is quota; SlowDown waits as asked; no call inside a transaction; revoked keys are token_invalid", async () => {
    const s3 = client();
    await control(sandbox, "s3/quota", { bucket: s3Settings(sandbox).bucket, bytes: 100 });
    expect(await failureOf(s3.put("q.bin", [bytes(200)]))).toMatchObject({
      kind: "quota",
      code: "XMinioStorageFull",
    });
    await control(sandbox, "s3/quota", { bucket: s3Settings(sandbox).bucket, bytes: null });
    await control(sandbox, "faults", { endpoint: "s3.put", error: "s3:SlowDown", retry_after: 2 });
    const waits: number[] = [];
    await withBackoff(() => s3.put("q.bin", [bytes(200)]), recordingRetry(waits));
    expect(waits).toEqual([2000]);
    await expect(withinTransactionScope(() => s3.head("q.bin"))).rejects.toThrow(
      CallInTransactionError,
    );
    await control(sandbox, "faults", { endpoint: "s3.head", error: "s3:InvalidAccessKeyId" });
    expect(await failureOf(s3.head("q.bin"))).toMatchObject({ kind: "token_invalid" });
  });
});

import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { UploadSessionGoneError } from "../../src/destinations/index.ts";
import { createS3Client, POSTED_AT_META } from "../../src/providers/s3/s3.client.ts";
import { bytes, control, s3Settings } from "../support/destinations.ts";
import {
  calls,
  FOLDER,
  failureOf,
  MiB,
  md5,
  POSTED,
  PREFIX,
  read,
  recorder,
  s3Destination,
  source,
  spec,
  stored,
} from "../support/s3-destination.ts";

/** The S3 adapter against the sandbox's store (R2's flavour: no SDK checksums, equal parts). */
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

const noLease = { resume: null, checkLease: () => {} };

describe("S3 destination: writing", () => {
  it("folders are key prefixes; a small file is one PUT with the post time, tags and its md5", async () => {
    const { session, destination } = s3Destination(sandbox);
    expect(destination.capabilities).toMatchObject({
      verifiedHash: "s3_etag",
      setsModifiedTime: false,
      findsByTags: false,
      maxSingleRequestBytes: 5 * MiB,
    });
    const folder = await session.ensureFolder("17841400000000001", [
      "Keepsake",
      "@lumen.studio",
      "2023",
    ]);
    expect(folder).toEqual({
      id: FOLDER,
      recordedAt: new Date("2026-01-02T03:04:05Z"),
      adopted: false,
    });
    expect(await session.findPostFiles("1790")).toEqual(new Map());
    expect(await session.findItem("1790")).toEqual([]);

    const data = bytes(70_000);
    const r = recorder();
    const file = await session.put(spec(), source(data), r, noLease);
    expect(file).toEqual({
      id: `${FOLDER}/photo.jpg`,
      name: "photo.jpg",
      size: data.length,
      hash: md5(data),
      webUrl: null,
      tags: { item: "1790", post: "1790" },
      folderId: FOLDER,
    });
    expect(r.events).toEqual([]); // one request: no session to record
    expect(await calls(sandbox, "s3.put")).toBe(1);
    const { objects } = await stored(sandbox);
    expect(objects).toMatchObject([
      {
        key: `${FOLDER}/photo.jpg`,
        size: data.length,
        content_type: "image/jpeg",
        metadata: {
          [POSTED_AT_META]: POSTED.toISOString(),
          "keepsake-item": "1790",
          "keepsake-post": "1790",
        },
      },
    ]);
    expect(await session.get(file.id)).toEqual({ ...file, tags: { item: "1790", post: "1790" } });
    await session.remove(file.id);
    expect((await stored(sandbox)).objects).toEqual([]);
    expect(await failureOf(session.get(file.id))).toMatchObject({ kind: "not_found" });
  });

  it("a small file of known length is piped: a download that breaks off mid-PUT leaves nothing and is read again", async () => {
    const { session, waits } = s3Destination(sandbox);
    const data = bytes(3 * MiB, 5);
    const src = source(data, {
      at: {
        offset: 2 * MiB,
        run: async () => {
          throw new Error("the CDN broke off");
        },
      },
    });
    const file = await session.put(spec(), src, recorder(), noLease);
    expect(file).toMatchObject({ id: `${FOLDER}/photo.jpg`, size: data.length, hash: md5(data) });
    expect(src.opened).toBe(2); // the caller's retry read the download again from its first byte
    expect(waits).toHaveLength(1);
    // The broken try's PUT had begun before the byte at 2 MiB was read: the file is piped, not
    // read whole first (which would have failed before any request).
    expect(await calls(sandbox, "s3.put")).toBe(2);
    expect((await stored(sandbox)).objects.map((o) => o.key)).toEqual([`${FOLDER}/photo.jpg`]);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));

    // Broken off on every try: the put fails as the network did, and S3 holds no object.
    const { session: once } = s3Destination(sandbox, { attempts: 1 });
    const broken = source(bytes(3 * MiB, 6), {
      at: {
        offset: MiB,
        run: async () => {
          throw new Error("the CDN broke off");
        },
      },
    });
    const err = await failureOf(once.put(spec("other.jpg"), broken, recorder(), noLease));
    expect(err).toMatchObject({ kind: "network" });
    expect((await stored(sandbox)).objects.map((o) => o.key)).toEqual([`${FOLDER}/photo.jpg`]);
  });

  it("a large file of unknown length goes in equal parts, recorded before the first, closed at the end", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(11 * MiB + 5, 3);
    const r = recorder();
    let partsWhenRecorded = -1;
    const recording = {
      ...r,
      opened: async (ref: string, total: number | null) => {
        partsWhenRecorded = await calls(sandbox, "s3.multipart.part");
        await r.opened(ref, total);
      },
    };
    const file = await session.put(
      spec("clip.mp4", { mimeType: "video/mp4" }),
      source(data, { unknownLength: true }),
      recording,
      noLease,
    );
    expect(partsWhenRecorded).toBe(0);
    expect(r.events).toEqual(["opened null", "closed"]);
    expect(JSON.parse(r.ref ?? "")).toEqual({
      key: `${FOLDER}/clip.mp4`,
      uploadId: expect.any(String),
      partSize: 5 * MiB,
    });
    expect(file.hash).toMatch(/^[0-9a-f]{32}-3$/);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
    expect((await stored(sandbox)).uploads).toEqual([]);
    expect(await session.uploadStatus(r.ref ?? "", data.length)).toEqual({
      done: expect.objectContaining({ id: file.id, size: data.length, hash: file.hash }),
    });
  });

  it("a known length that needs parts is piped: when part 2's bytes are read, part 1's were all sent (none held)", async () => {
    const { session } = s3Destination(sandbox);
    const seen: number[] = [];
    // The download pauses at part 2's first byte until S3 holds part 1 (the sandbox's listing):
    // bytes read ahead of what was sent would be held until then.
    const at = {
      offset: 5 * MiB,
      run: async () => {
        for (let i = 0; i < 500; i++) {
          const held = (await stored(sandbox)).uploads.flatMap((u) => u.parts.map((p) => p.number));
          if (held.includes(1)) return void seen.push(...held);
          await new Promise((r) => setTimeout(r, 20));
        }
      },
    };
    const data = bytes(7 * MiB);
    const file = await session.put(spec("v.mp4"), source(data, { at }), recorder(), noLease);
    expect(seen).toEqual([1]);
    expect(await calls(sandbox, "s3.multipart.part")).toBe(2);
    expect(file.hash).toMatch(/-2$/);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
  });

  it("uploads of unknown length at once reuse part buffers without sharing one: each object is what was sent", async () => {
    const { session } = s3Destination(sandbox);
    // Media of unknown length is read in parts (known lengths are piped and hold none).
    const unknown = (d: Buffer) => source(d, { unknownLength: true });
    const datas = [bytes(11 * MiB, 21), bytes(11 * MiB, 22), bytes(7 * MiB, 23)];
    const files = await Promise.all(
      datas.map((d, i) => session.put(spec(`v${i}.mp4`), unknown(d), recorder(), noLease)),
    );
    // And again, now from the buffers the first three gave back.
    const more = [bytes(11 * MiB, 24), bytes(6 * MiB, 25)];
    const after = await Promise.all(
      more.map((d, i) => session.put(spec(`w${i}.mp4`), unknown(d), recorder(), noLease)),
    );
    for (const [i, d] of [...datas, ...more].entries()) {
      const file = [...files, ...after][i];
      expect(md5(await read(sandbox, file?.id ?? ""))).toBe(md5(d));
    }
  });

  it("a cut in the middle: the recorded upload is resumed, no part twice, one object", async () => {
    const { session } = s3Destination(sandbox, { attempts: 2 });
    const data = bytes(16 * MiB, 5);
    // Set as part 2 is being sent (the stream passes 8 MiB): part 3's every try is cut. Piped,
    // it is not sent again from memory: the put resumes the upload at once, once, from the
    // media read again (parts 1 and 2 are held: not sent), where part 3 is tried twice more.
    const cut = () => control(sandbox, "s3/cut", { after_bytes: MiB, count: 3 });
    const r = recorder();
    const err = await failureOf(
      session.put(
        spec("long.mp4"),
        source(data, { at: { offset: 8 * MiB, run: cut } }),
        r,
        noLease,
      ),
    );
    expect(err).toMatchObject({ kind: "network" });
    expect(r.events).toEqual([`opened ${data.length}`]);
    expect(await calls(sandbox, "s3.multipart.part")).toBe(5); // 1, 2, then 3 three times
    const status = await session.uploadStatus(r.ref ?? "", data.length);
    expect(status).toEqual({ open: { ref: r.ref, total: data.length, received: 10 * MiB } });
    if (!status || !("open" in status)) throw new Error("not open");

    const file = await session.put(spec("long.mp4"), source(data), r, {
      ...noLease,
      resume: status.open,
    });
    expect(await calls(sandbox, "s3.multipart.part")).toBe(7); // parts 3 and 4 only
    expect(r.events).toEqual([`opened ${data.length}`, "closed"]);
    expect(file.hash).toMatch(/-4$/);
    const { objects, uploads } = await stored(sandbox);
    expect(objects.map((o) => o.key)).toEqual([`${FOLDER}/long.mp4`]);
    expect(uploads).toEqual([]);
    expect(md5(await read(sandbox, file.id))).toBe(md5(data));
  });

  it("a retry after a kill between upload and record adopts the file; other content gets ' (2)'", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(40_000, 1);
    const first = await session.put(spec(), source(data), recorder(), noLease);
    // The worker died before recording `first`: the next attempt writes again.
    const again = await session.put(spec(), source(data), recorder(), noLease);
    expect(again).toEqual(first);
    expect((await stored(sandbox)).objects.map((o) => o.key)).toEqual([`${FOLDER}/photo.jpg`]);

    const other = bytes(40_000, 2);
    const second = await session.put(spec(), source(other), recorder(), noLease);
    expect(second).toMatchObject({ id: `${FOLDER}/photo (2).jpg`, name: "photo (2).jpg" });
    expect(md5(await read(sandbox, `${FOLDER}/photo.jpg`))).toBe(md5(data));
    expect(md5(await read(sandbox, second.id))).toBe(md5(other));
    // Its own retry adopts the " (2)" file rather than making a third.
    expect(await session.put(spec(), source(other), recorder(), noLease)).toEqual(second);
    expect((await stored(sandbox)).objects.map((o) => o.key)).toEqual([
      `${FOLDER}/photo (2).jpg`,
      `${FOLDER}/photo.jpg`,
    ]);
  });

  it("a large file at a taken key: the upload is aborted and closed, then adopted or renamed", async () => {
    const { session } = s3Destination(sandbox);
    const data = bytes(6 * MiB, 8);
    const first = await session.put(spec("v.mp4"), source(data), recorder(), noLease);
    const r = recorder();
    expect(await session.put(spec("v.mp4"), source(data), r, noLease)).toEqual(first);
    expect(r.events).toEqual([`opened ${data.length}`, "closed"]);
    const other = bytes(6 * MiB, 9);
    const src = source(other);
    const renamed = await session.put(spec("v.mp4"), src, recorder(), noLease);
    expect(renamed.id).toBe(`${FOLDER}/v (2).mp4`);
    expect(src.opened).toBe(2); // read again for the new name
    expect(md5(await read(sandbox, renamed.id))).toBe(md5(other));
    expect((await stored(sandbox)).uploads).toEqual([]);
  });

  it("putBytes overwrites; replace keeps the id and the post's metadata; a gone file is not_found", async () => {
    const { session } = s3Destination(sandbox);
    const json = spec("photo.json", { mimeType: "application/json", tags: { item: "1790_meta" } });
    await session.putBytes(json, Buffer.from('{"v":1}'));
    const put = await session.putBytes(json, Buffer.from('{"v":2}'));
    expect(put).toMatchObject({ id: `${FOLDER}/photo.json`, hash: md5(Buffer.from('{"v":2}')) });
    expect((await read(sandbox, put.id)).toString()).toBe('{"v":2}');

    const replaced = await session.replace(put.id, Buffer.from('{"v":3}'), "application/json");
    expect(replaced).toMatchObject({ id: put.id, hash: md5(Buffer.from('{"v":3}')) });
    expect(replaced.tags).toEqual({ item: "1790_meta" });
    const { objects } = await stored(sandbox);
    expect(objects).toHaveLength(1);
    expect(objects[0]?.metadata).toMatchObject({ [POSTED_AT_META]: POSTED.toISOString() });
    expect((await read(sandbox, put.id)).toString()).toBe('{"v":3}');

    await session.remove(put.id);
    expect(
      await failureOf(session.replace(put.id, Buffer.from("{}"), "application/json")),
    ).toMatchObject({ kind: "not_found" });
  });

  it("uploadStatus: an unknown or aborted upload is gone, and resuming it says so", async () => {
    const { session } = s3Destination(sandbox);
    const ref = JSON.stringify({ key: `${FOLDER}/x.mp4`, uploadId: "nope", partSize: 5 * MiB });
    expect(await session.uploadStatus(ref, 12 * MiB)).toBeNull();
    expect(await session.uploadStatus("not json", null)).toBeNull();
    const src = source(bytes(12 * MiB));
    const err = await failureOf(
      session.put(spec("x.mp4"), src, recorder(), {
        ...noLease,
        resume: { ref, total: 12 * MiB, received: 5 * MiB },
      }),
    );
    expect(err).toBeInstanceOf(UploadSessionGoneError);
    expect(await calls(sandbox, "s3.multipart.part")).toBe(0);
    expect(src.cancelled).toBe(1); // the download is let go, not left open
  });

  it("an upload aborted while it is sent (a lifecycle rule, an expiry) is a session gone", async () => {
    const { session } = s3Destination(sandbox);
    const r = recorder();
    const abort = async () => {
      const { key, uploadId } = JSON.parse(r.ref ?? "") as { key: string; uploadId: string };
      await createS3Client(s3Settings(sandbox, PREFIX)).abortMultipart(key, uploadId);
    };
    const data = bytes(16 * MiB);
    const err = await failureOf(
      session.put(
        spec("v.mp4"),
        source(data, { at: { offset: 10 * MiB, run: abort } }),
        r,
        noLease,
      ),
    );
    expect(err).toBeInstanceOf(UploadSessionGoneError);
    // Parts 1 and 2, then part 3, in flight as the upload was aborted: S3 refuses it, or takes
    // it and refuses part 4.
    expect([3, 4]).toContain(await calls(sandbox, "s3.multipart.part"));
    expect(await stored(sandbox)).toEqual({ objects: [], uploads: [] });
  });

  it("a lost claim stops the upload before its next part", async () => {
    const { session } = s3Destination(sandbox);
    let parts = 0;
    const err = await failureOf(
      session.put(spec("v.mp4"), source(bytes(16 * MiB)), recorder(), {
        resume: null,
        checkLease: () => {
          if (++parts > 2) throw new Error("lease lost");
        },
      }),
    );
    expect(err.message).toBe("lease lost");
    expect(await calls(sandbox, "s3.multipart.part")).toBe(2);
  });
});

import { type Sandbox, startSandbox } from "@keepsake/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  classifyDestinationError,
  UploadSessionGoneError,
} from "../../src/destinations/destination.ts";
import { onedriveCapabilities } from "../../src/destinations/onedrive.ts";
import { FRAGMENT_UNIT, MAX_FRAGMENT } from "../../src/providers/microsoft/onedrive.client.ts";
import { quickXorHash } from "../../src/providers/microsoft/quickxor.ts";
import { bytes, control } from "../support/destinations.ts";
import {
  APP,
  FOLDER,
  FRAGMENT,
  failureOf,
  noLease,
  onedriveHarness,
  POSTED,
  recorderOf,
  sourceOf,
  specOf,
} from "../support/onedrive-destination.ts";

/**
 * Issue 38: OneDrive behind the destination seam, against the sandbox's Graph — folders, small
 * and session uploads with the post's time and quickXorHash, resumes, exactly-once adoption,
 * never overwriting media, Keepsake's own files overwritten in place. Faults are in
 * onedrive.destination.faults.test.ts.
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  await sandbox.reset();
});
const h = onedriveHarness(() => sandbox);
/** Over the 4 MB of one simple upload: an upload session of four fragments. */
const LARGE = 3 * FRAGMENT + 777_000;

describe("OneDrive destination", () => {
  it("capabilities say what Graph takes", () => {
    expect(onedriveCapabilities).toMatchObject({
      label: "OneDrive",
      maxSingleRequestBytes: 4_000_000,
      chunkQuantumBytes: FRAGMENT_UNIT,
      maxChunkBytes: MAX_FRAGMENT,
      lengthRequiredUpFront: true,
      verifiedHash: "quickxor",
      setsModifiedTime: true,
      findsByTags: false,
    });
    expect(MAX_FRAGMENT).toBeLessThan(60 * 1024 * 1024);
  });

  it("folders under the app folder, once; a small file with the post's time, verified, with its link", async () => {
    const { d, held } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    expect(folder).toMatchObject({ id: "Keepsake/@lumen.studio/2024", adopted: false });
    const items = await h.calls("onedrive.items");
    expect((await d.ensureFolder("acct", FOLDER)).id).toBe(folder.id);
    expect(await h.calls("onedrive.items")).toBe(items); // known: no request
    const { client } = h;
    const data = bytes(300_000);
    const { recorder, told } = recorderOf();
    const stored = await d.put(
      specOf(folder.id, "2024-11-12_photo_1.jpg", "image/jpeg"),
      sourceOf(data).source,
      recorder,
      noLease,
    );
    expect(stored).toMatchObject({
      id: "Keepsake/@lumen.studio/2024/2024-11-12_photo_1.jpg",
      name: "2024-11-12_photo_1.jpg",
      size: data.length,
      hash: quickXorHash(data),
      folderId: folder.id,
      tags: { item: "2024-11-12_photo_1.jpg", post: "p1" },
    });
    expect(stored.webUrl).toMatch(/\/onedrive\?item=/);
    expect(told).toEqual({ opened: [], closed: 0 });
    expect(await h.files()).toMatchObject([
      {
        path: `${APP}Keepsake/@lumen.studio/2024/2024-11-12_photo_1.jpg`,
        quick_xor_hash: quickXorHash(data),
        file_system_modified: POSTED.toISOString(),
      },
    ]);
    expect(await d.get(stored.id)).toMatchObject({ id: stored.id, hash: stored.hash });
    // A folder deleted in OneDrive is made again once forgotten.
    const token = held.access;
    await client().removeByPath(token, "Keepsake/@lumen.studio");
    await d.forgetFolder("acct", FOLDER);
    await d.ensureFolder("acct", FOLDER);
    expect((await client().getByPath(token, folder.id))?.folder).toBe(true);
    await d.remove(stored.id);
    await d.remove(stored.id);
    expect(classifyDestinationError(await failureOf(d.get(stored.id)))).toEqual({
      kind: "not_found",
    });
  });

  it("a large file through a session recorded before its first byte; a cut is resumed in place, nothing sent twice", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const data = bytes(LARGE, 3);
    await control(sandbox, "onedrive/cut", { after_bytes: FRAGMENT_UNIT + 9 });
    const ranges = await h.calls("onedrive.upload");
    const { recorder, told } = recorderOf();
    const opened: number[] = [];
    const stored = await d.put(
      specOf(folder.id, "reel.mp4"),
      sourceOf(data).source,
      {
        opened: async (ref, total) => {
          opened.push(await h.calls("onedrive.upload"));
          await recorder.opened(ref, total);
        },
        closed: recorder.closed,
      },
      noLease,
    );
    expect(opened).toEqual([ranges]); // recorded before any range was sent
    expect(told.opened).toEqual([{ ref: expect.any(String), total: data.length }]);
    expect(JSON.parse(told.opened[0]!.ref)).toMatchObject({ path: stored.id });
    expect(stored).toMatchObject({ size: data.length, hash: quickXorHash(data) });
    // Four fragments and the cut one's rest (it kept one 320 KiB unit).
    expect((await h.calls("onedrive.upload")) - ranges).toBe(5);
    expect(await h.files()).toMatchObject([
      {
        path: `${APP}${stored.id}`,
        size: data.length,
        quick_xor_hash: quickXorHash(data),
        file_system_modified: POSTED.toISOString(),
      },
    ]);
    // The session finished: its status is the file at the recorded path.
    expect(await d.uploadStatus(told.opened[0]!.ref, data.length)).toEqual({
      done: { ...stored, tags: {} },
    });
  });

  it("a worker stopped mid-upload: the recorded session is open and resumed from where it stands, no second file", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const data = bytes(LARGE, 5);
    const spec = specOf(folder.id, "long.mp4");
    const { recorder, told } = recorderOf();
    let checks = 0;
    const lost = await failureOf(
      d.put(spec, sourceOf(data).source, recorder, {
        resume: null,
        checkLease: () => {
          if (++checks > 3) throw new Error("the claim was lost");
        },
      }),
    );
    expect((lost as Error).message).toBe("the claim was lost");
    const ref = told.opened[0]!.ref;
    const st = await d.uploadStatus(ref, data.length);
    expect(st).toEqual({ open: { ref, total: data.length, received: expect.any(Number) } });
    const received = (st as { open: { received: number } }).open.received;
    expect(received).toBeGreaterThan(0);
    expect(received % FRAGMENT).toBe(0);

    const before = await h.calls("onedrive.upload");
    const stored = await d.put(spec, sourceOf(data).source, recorder, {
      resume: (st as { open: { ref: string; total: number; received: number } }).open,
      checkLease: () => {},
    });
    expect(stored).toMatchObject({ id: `${folder.id}/long.mp4`, hash: quickXorHash(data) });
    expect((await h.calls("onedrive.upload")) - before).toBe(
      Math.ceil((data.length - received) / FRAGMENT),
    );
    expect(told.opened).toHaveLength(1);
    expect((await h.files()).map((f) => f.path)).toEqual([`${APP}${folder.id}/long.mp4`]);

    // A session that no longer exists: gone for its status and for a resume.
    const other = recorderOf();
    await failureOf(
      d.put(specOf(folder.id, "gone.mp4"), sourceOf(data).source, other.recorder, {
        resume: null,
        checkLease: () => {
          throw new Error("stop");
        },
      }),
    );
    const goneRef = other.told.opened[0]!.ref;
    await h.client().cancelSession(JSON.parse(goneRef).url);
    expect(await d.uploadStatus(goneRef, data.length)).toBeNull();
    expect(await d.uploadStatus("not a ref", data.length)).toBeNull();
    const gone = await failureOf(
      d.put(specOf(folder.id, "gone.mp4"), sourceOf(data).source, other.recorder, {
        resume: { ref: goneRef, total: data.length, received: 0 },
        checkLease: () => {},
      }),
    );
    expect(gone).toBeInstanceOf(UploadSessionGoneError);
  });

  it("killed after writing, before recording: the retry adopts the file written (small and large), one file each", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const small = bytes(50_000, 1);
    const large = bytes(LARGE, 2);
    const first = {
      small: await d.put(
        specOf(folder.id, "a.jpg"),
        sourceOf(small).source,
        recorderOf().recorder,
        noLease,
      ),
      large: await d.put(
        specOf(folder.id, "b.mp4"),
        sourceOf(large).source,
        recorderOf().recorder,
        noLease,
      ),
    };
    const ranges = await h.calls("onedrive.upload");
    const again = recorderOf();
    expect(
      await d.put(specOf(folder.id, "a.jpg"), sourceOf(small).source, again.recorder, noLease),
    ).toEqual(first.small);
    const largeSource = sourceOf(large);
    expect(
      await d.put(specOf(folder.id, "b.mp4"), largeSource.source, again.recorder, noLease),
    ).toEqual(first.large);
    // Adopted by size and quickXorHash of the download: no session opened, no byte sent.
    expect(again.told.opened).toEqual([]);
    expect(await h.calls("onedrive.upload")).toBe(ranges);
    expect(largeSource.counts.reopened).toBe(0);
    expect((await h.files()).map((f) => f.path)).toEqual([
      `${APP}${folder.id}/a.jpg`,
      `${APP}${folder.id}/b.mp4`,
    ]);
  });

  it("other content at the name: kept untouched, the new file is written as “name (2)”", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const old = { small: bytes(40_000, 11), large: bytes(LARGE, 12) };
    const now = { small: bytes(40_000, 21), large: bytes(LARGE, 22) };
    await d.put(
      specOf(folder.id, "p.jpg"),
      sourceOf(old.small).source,
      recorderOf().recorder,
      noLease,
    );
    await d.put(
      specOf(folder.id, "v.mp4"),
      sourceOf(old.large).source,
      recorderOf().recorder,
      noLease,
    );
    const small = await d.put(
      specOf(folder.id, "p.jpg"),
      sourceOf(now.small).source,
      recorderOf().recorder,
      noLease,
    );
    const largeSource = sourceOf(now.large);
    const large = await d.put(
      specOf(folder.id, "v.mp4"),
      largeSource.source,
      recorderOf().recorder,
      noLease,
    );
    expect(small).toMatchObject({ id: `${folder.id}/p (2).jpg`, hash: quickXorHash(now.small) });
    expect(large).toMatchObject({ id: `${folder.id}/v (2).mp4`, hash: quickXorHash(now.large) });
    // Same size as the file there: the download was hashed to compare, then read again.
    expect(largeSource.counts.reopened).toBe(1);
    expect(
      (await h.files()).map((f) => [
        f.path.slice(APP.length),
        f.quick_xor_hash,
        f.file_system_modified,
      ]),
    ).toEqual([
      [`${folder.id}/p (2).jpg`, quickXorHash(now.small), POSTED.toISOString()],
      [`${folder.id}/p.jpg`, quickXorHash(old.small), POSTED.toISOString()],
      [`${folder.id}/v (2).mp4`, quickXorHash(now.large), POSTED.toISOString()],
      [`${folder.id}/v.mp4`, quickXorHash(old.large), POSTED.toISOString()],
    ]);
    // The same new content again is the " (2)" file, adopted.
    expect(
      await d.put(
        specOf(folder.id, "p.jpg"),
        sourceOf(now.small).source,
        recorderOf().recorder,
        noLease,
      ),
    ).toEqual(small);
    expect(await h.files()).toHaveLength(4);
  });

  it("a name taken while the session was open (OneDrive may check `fail` only at commit): the other file kept, this one “name (2)”", async () => {
    const { d, held } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const data = bytes(LARGE, 31);
    const { recorder, told } = recorderOf();
    const stored = await d.put(
      specOf(folder.id, "race.mp4"),
      sourceOf(data).source,
      {
        opened: async (ref, total) => {
          if (told.opened.length === 0)
            await h
              .client()
              .putSmall(held.access, JSON.parse(ref).path, Buffer.from("other"), "fail");
          await recorder.opened(ref, total);
        },
        closed: recorder.closed,
      },
      noLease,
    );
    expect(stored).toMatchObject({ id: `${folder.id}/race (2).mp4`, hash: quickXorHash(data) });
    expect(told.opened.map((o) => JSON.parse(o.ref).path)).toEqual([
      `${folder.id}/race.mp4`,
      `${folder.id}/race (2).mp4`,
    ]);
    expect(told.closed).toBe(1);
    expect((await h.files()).map((f) => [f.path.slice(APP.length), f.size])).toEqual([
      [`${folder.id}/race (2).mp4`, data.length],
      [`${folder.id}/race.mp4`, 5],
    ]);
  });

  it("Keepsake's own files: putBytes overwrites the same item, replace keeps its id, a missing one is not_found", async () => {
    const { d } = await h.open();
    const folder = await d.ensureFolder("acct", FOLDER);
    const spec = specOf(folder.id, "x_meta.json", "application/json");
    const one = await d.putBytes(spec, Buffer.from('{"v":1}'));
    const itemId = (await h.files())[0]!.id;
    const two = await d.putBytes(spec, Buffer.from('{"v":22}'));
    expect(two).toMatchObject({ id: one.id, size: 8, hash: quickXorHash(Buffer.from('{"v":22}')) });
    expect(await h.files()).toMatchObject([
      { id: itemId, size: 8, file_system_modified: POSTED.toISOString() },
    ]);
    const big = bytes(4_100_000, 9); // over one simple upload: a session with `replace`
    const three = await d.replace(one.id, big, "application/json");
    expect(three).toMatchObject({ id: one.id, size: big.length, hash: quickXorHash(big) });
    expect(await h.files()).toMatchObject([{ id: itemId, size: big.length }]);
    await d.remove(one.id);
    const missing = await failureOf(d.replace(one.id, Buffer.from("{}"), "application/json"));
    expect(classifyDestinationError(missing)).toEqual({ kind: "not_found" });
    expect(await h.files()).toEqual([]);
  });
});
